// An MCP server protected by OAuth, for tests, built from the SDK's server-side auth pieces: discovery
// (protected-resource and authorization-server metadata), dynamic client registration, PKCE, tokens and
// refresh. The authorization page approves at once (it redirects back with a code), as a user would.
// Usage: node mcp-oauth-server.mjs [PORT] — prints "listening <port>". `POST /expire` makes every access
// token issued so far expired (to test refresh without waiting on a clock).
import { randomUUID } from 'node:crypto';
import express from 'express';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const ttl = 3600;
const clients = new Map();
const codes = new Map();
const tokens = new Map();
const refreshTokens = new Map();
let issued = 0;

function issue(clientId) {
  const access = `access-${randomUUID()}`;
  const refresh = `refresh-${randomUUID()}`;
  issued++;
  tokens.set(access, { clientId, expiresAt: Math.floor(Date.now() / 1000) + ttl });
  refreshTokens.set(refresh, clientId);
  return { access_token: access, token_type: 'bearer', expires_in: ttl, refresh_token: refresh };
}

const provider = {
  clientsStore: {
    getClient: async (id) => clients.get(id),
    registerClient: async (client) => {
      const full = { ...client, client_id: `client-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
      clients.set(full.client_id, full);
      return full;
    },
  },
  authorize: async (client, params, res) => {
    const code = `code-${randomUUID()}`;
    codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge, redirectUri: params.redirectUri });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  },
  challengeForAuthorizationCode: async (_client, code) => codes.get(code)?.challenge ?? '',
  exchangeAuthorizationCode: async (client, code) => {
    const entry = codes.get(code);
    if (!entry || entry.clientId !== client.client_id) throw new Error('unknown code');
    codes.delete(code);
    return issue(client.client_id);
  },
  exchangeRefreshToken: async (client, refresh) => {
    if (refreshTokens.get(refresh) !== client.client_id) throw new Error('unknown refresh token');
    refreshTokens.delete(refresh);
    return issue(client.client_id);
  },
  verifyAccessToken: async (token) => {
    const entry = tokens.get(token);
    if (!entry) throw new InvalidTokenError('unknown token');
    return { token, clientId: entry.clientId, scopes: [], expiresAt: entry.expiresAt };
  },
};

const app = express();
const listener = app.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const base = new URL(`http://127.0.0.1:${listener.address().port}`);
  const mcpUrl = new URL('/mcp', base);
  app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl }));
  app.get('/stats', (_req, res) => res.json({ clients: clients.size, issued }));
  app.post('/expire', (_req, res) => {
    for (const entry of tokens.values()) entry.expiresAt = Math.floor(Date.now() / 1000) - 1;
    res.json({ expired: tokens.size });
  });
  app.post(
    '/mcp',
    express.json(),
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    async (req, res) => {
      const server = new Server({ name: 'deft-oauth-test', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'whoami', description: 'Say which client is signed in.', inputSchema: { type: 'object', properties: {} } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: `signed in as ${req.auth.clientId}` }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  process.stdout.write(`listening ${listener.address().port}\n`);
});
