import type { Cron } from 'croner';
import { cronClass } from '#infra/platform/on-demand';
import { ToolInputError } from '#contract/tool';

const MACROS: Record<string, string> = {
  '@hourly': 'every hour, on the hour',
  '@daily': 'every day at 00:00',
  '@midnight': 'every day at 00:00',
  '@weekly': 'every Sunday at 00:00',
  '@monthly': 'at 00:00 on the 1st of every month',
  '@yearly': 'at 00:00 on January 1 every year',
  '@annually': 'at 00:00 on January 1 every year',
};

/** A validated schedule: standard 5-field cron in local time, month and weekday names, or a macro. */
export interface Schedule {
  expr: string;
  /** The next fire strictly after `after`, or null when there is none. */
  next(after: number): number | null;
}

/** Parse a cron expression, or throw a ToolInputError that says how to write one. */
export function parseSchedule(input: string): Schedule {
  const expr = input.trim().replace(/\s+/g, ' ');
  if (expr.startsWith('@')) {
    if (!MACROS[expr.toLowerCase()]) {
      throw new ToolInputError(`Unknown cron macro "${expr}". Use one of ${Object.keys(MACROS).join(', ')}, or 5 fields like "0 9 * * MON-FRI".`);
    }
  } else {
    const fields = expr ? expr.split(' ').length : 0;
    if (fields !== 5) {
      throw new ToolInputError(
        `"${input}" has ${fields} field${fields === 1 ? '' : 's'}; a cron expression has exactly 5: minute hour day-of-month month day-of-week (local time), e.g. "*/15 * * * *" or "0 9 * * MON-FRI". Macros: @hourly, @daily, @weekly, @monthly, @yearly.`,
      );
    }
  }
  let cron: Cron;
  try {
    const CronClass = cronClass();
    cron = new CronClass(expr.startsWith('@') ? expr.toLowerCase() : expr, { paused: true, mode: '5-part' });
  } catch (error) {
    const reason = (error as Error).message.replace(/^CronPattern:\s*/, '');
    throw new ToolInputError(
      `Invalid cron expression "${input}": ${reason}. Fields: minute 0-59, hour 0-23, day-of-month 1-31, month 1-12 or JAN-DEC, day-of-week 0-7 or SUN-SAT (0 and 7 are Sunday).`,
    );
  }
  return {
    expr,
    next: (after) => cron.nextRun(new Date(after))?.getTime() ?? null,
  };
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function nameOf(token: string, names: string[], labels: string[], offset: number): string | null {
  const lower = token.toLowerCase();
  const byName = names.indexOf(lower);
  if (byName >= 0) return labels[byName]!;
  if (!/^\d+$/.test(token)) return null;
  const index = (Number(token) - offset) % labels.length;
  return labels[index] ?? null;
}

/** "MON-FRI" → "Monday to Friday", "1,3" → "Monday and Wednesday"; null when too intricate to say. */
function listOf(field: string, names: string[], labels: string[], offset: number): string | null {
  const parts = field.split(',').map((part) => {
    const range = part.split('-');
    if (range.length === 2) {
      const [a, b] = range.map((t) => nameOf(t, names, labels, offset));
      return a && b ? `${a} to ${b}` : null;
    }
    return range.length === 1 ? nameOf(part, names, labels, offset) : null;
  });
  if (parts.some((p) => p === null)) return null;
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]!;
}

const pad = (n: string) => n.padStart(2, '0');

/** A short English reading of a schedule, for people and the model. */
export function describeSchedule(expr: string): string {
  const macro = MACROS[expr.toLowerCase()];
  if (macro) return macro;
  const [minute, hour, dom, month, dow] = expr.split(' ') as [string, string, string, string, string];
  const num = (s: string) => /^\d+$/.test(s);
  const everyDay = dom === '*' && month === '*' && dow === '*';
  if (minute === '*' && hour === '*' && everyDay) return 'every minute';
  const step = /^\*\/(\d+)$/.exec(minute);
  if (step && hour === '*' && everyDay) return `every ${step[1]} minutes`;
  if (num(minute) && hour === '*' && everyDay) return `every hour at minute ${minute}`;
  const hourStep = /^\*\/(\d+)$/.exec(hour);
  if (num(minute) && hourStep && everyDay) return `every ${hourStep[1]} hours at minute ${minute}`;
  if (num(minute) && num(hour)) {
    const at = `at ${pad(hour)}:${pad(minute)}`;
    if (everyDay) return `every day ${at}`;
    const days = dow === '*' ? null : listOf(dow, DAY_NAMES, DAYS, 0);
    const months = month === '*' ? null : listOf(month, MONTH_NAMES, MONTHS, 1);
    if (dom === '*' && days && month === '*') return `${at} on ${days}`;
    if (num(dom) && dow === '*' && month === '*') return `${at} on day ${dom} of every month`;
    if (num(dom) && dow === '*' && months) return `${at} on day ${dom} of ${months}`;
    if (dom === '*' && days && months) return `${at} on ${days} in ${months}`;
  }
  return `cron "${expr}" (minute hour day-of-month month day-of-week, local time)`;
}

/** Local time as ISO 8601 with its UTC offset, e.g. 2026-03-02T09:00:00+01:00. */
export function localIso(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}` +
    `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`
  );
}
