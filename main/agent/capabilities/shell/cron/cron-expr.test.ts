import { describe, expect, it } from 'vitest';
import { describeSchedule, localIso, parseSchedule } from './cron-expr';

const at = (s: string) => new Date(s).getTime();
const iso = (ms: number | null) => (ms === null ? null : localIso(ms).slice(0, 16));
/** The next n fires after `from`, as local "YYYY-MM-DDTHH:MM". */
function fires(expr: string, from: string, n = 3): Array<string | null> {
  const schedule = parseSchedule(expr);
  const out: Array<string | null> = [];
  let t = at(from);
  for (let i = 0; i < n; i++) {
    const next = schedule.next(t);
    out.push(iso(next));
    if (next === null) break;
    t = next;
  }
  return out;
}

describe('cron expressions (local time)', () => {
  it('numbers, ranges, lists and steps', () => {
    expect(fires('30 9 * * *', '2026-03-02T08:00:00')).toEqual(['2026-03-02T09:30', '2026-03-03T09:30', '2026-03-04T09:30']);
    expect(fires('0 9-11 * * *', '2026-03-02T08:00:00')).toEqual(['2026-03-02T09:00', '2026-03-02T10:00', '2026-03-02T11:00']);
    expect(fires('0 0 1,15 * *', '2026-03-02T00:00:00')).toEqual(['2026-03-15T00:00', '2026-04-01T00:00', '2026-04-15T00:00']);
    expect(fires('*/20 * * * *', '2026-03-02T10:05:00')).toEqual(['2026-03-02T10:20', '2026-03-02T10:40', '2026-03-02T11:00']);
    expect(fires('10-50/20 8 * * *', '2026-03-02T00:00:00')).toEqual(['2026-03-02T08:10', '2026-03-02T08:30', '2026-03-02T08:50']);
  });

  it('month and weekday names, case-insensitive, and 7 as Sunday', () => {
    expect(fires('0 9 * * MON-FRI', '2026-03-06T10:00:00')).toEqual(['2026-03-09T09:00', '2026-03-10T09:00', '2026-03-11T09:00']);
    expect(fires('0 12 1 jan,Jul *', '2026-03-02T00:00:00', 2)).toEqual(['2026-07-01T12:00', '2027-01-01T12:00']);
    expect(fires('0 8 * * 7', '2026-03-02T00:00:00', 1)).toEqual(fires('0 8 * * SUN', '2026-03-02T00:00:00', 1));
    expect(fires('0 8 * * 7', '2026-03-02T00:00:00', 1)).toEqual(['2026-03-08T08:00']);
  });

  it('day-of-month and day-of-week are OR-combined when both are restricted', () => {
    // The 1st-7th of the month, or any Monday.
    expect(fires('0 0 1-7 * MON', '2026-03-09T12:00:00', 2)).toEqual(['2026-03-16T00:00', '2026-03-23T00:00']);
  });

  it('macros', () => {
    expect(fires('@hourly', '2026-03-02T10:15:00', 1)).toEqual(['2026-03-02T11:00']);
    expect(fires('@daily', '2026-03-02T10:15:00', 1)).toEqual(['2026-03-03T00:00']);
    expect(fires('@weekly', '2026-03-02T10:15:00', 1)).toEqual(['2026-03-08T00:00']);
    expect(fires('@monthly', '2026-03-02T10:15:00', 1)).toEqual(['2026-04-01T00:00']);
    expect(fires('@yearly', '2026-03-02T10:15:00', 1)).toEqual(['2027-01-01T00:00']);
    expect(fires('@ANNUALLY', '2026-03-02T10:15:00', 1)).toEqual(['2027-01-01T00:00']);
  });

  it('refuses what is not 5-field cron, with a message saying how to write it', () => {
    expect(() => parseSchedule('0 0 * * * *')).toThrow(/has 6 fields; a cron expression has exactly 5: minute hour/);
    expect(() => parseSchedule('* *')).toThrow(/has 2 fields/);
    expect(() => parseSchedule('')).toThrow(/has 0 fields/);
    expect(() => parseSchedule('60 * * * *')).toThrow(/Invalid cron expression "60 \* \* \* \*".*minute 0-59/);
    expect(() => parseSchedule('0 0 * FOO *')).toThrow(/Invalid cron expression/);
    expect(() => parseSchedule('@reboot')).toThrow(/Unknown cron macro "@reboot"/);
    expect(() => parseSchedule('*/0 * * * *')).toThrow(/Invalid cron expression/);
  });

  it('a date that never comes has no next fire', () => {
    expect(parseSchedule('0 0 30 2 *').next(at('2026-03-02T00:00:00'))).toBeNull();
  });

  it('describes common schedules in words', () => {
    expect(describeSchedule('* * * * *')).toBe('every minute');
    expect(describeSchedule('*/15 * * * *')).toBe('every 15 minutes');
    expect(describeSchedule('5 * * * *')).toBe('every hour at minute 5');
    expect(describeSchedule('0 9 * * *')).toBe('every day at 09:00');
    expect(describeSchedule('30 9 * * MON-FRI')).toBe('at 09:30 on Monday to Friday');
    expect(describeSchedule('0 18 * * 1,3,5')).toBe('at 18:00 on Monday, Wednesday and Friday');
    expect(describeSchedule('0 0 1 * *')).toBe('at 00:00 on day 1 of every month');
    expect(describeSchedule('0 0 1 jan *')).toBe('at 00:00 on day 1 of January');
    expect(describeSchedule('@weekly')).toBe('every Sunday at 00:00');
    expect(describeSchedule('1-5 */2 * * *')).toMatch(/^cron "1-5 \*\/2 \* \* \*"/);
  });

  it('formats local times with their offset', () => {
    expect(localIso(at('2026-03-02T09:05:07'))).toMatch(/^2026-03-02T09:05:07[+-]\d\d:\d\d$/);
  });
});
