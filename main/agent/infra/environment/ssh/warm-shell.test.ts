import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { WARM_BOOTSTRAP, warmLine } from './warm-shell';

describe('the command line a login shell started ahead reads', () => {
  // Newlines, quotes of both kinds, backslashes, %, $ and a carriage return: the command text arrives exactly.
  const command = `printf '%s|' "a 'b'" '"c"' 'd\\e' '%s' "$HOME" 'x\ry'; echo
echo "second line"; cat`;
  it.each(['sh', 'bash'])('runs the exact command on %s, and the bytes after it are its stdin', (shell) => {
    const out = execFileSync(shell, ['-c', WARM_BOOTSTRAP], { input: `${warmLine(command)}stdin 1\nstdin 2\n`, env: { HOME: '/h', PATH: process.env.PATH } });
    expect(out.toString()).toBe(`a 'b'|"c"|d\\e|%s|/h|x\ry|\nsecond line\nstdin 1\nstdin 2\n`);
  });
});
