// The session's cost is priced by the shared helper (the headless CLI prices its json result with it too).
export { type SessionCost, sessionCost } from '#protocol/helpers/prices';
