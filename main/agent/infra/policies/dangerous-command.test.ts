import { describe, expect, it } from 'vitest';
import { catastrophicDelete, catastrophicDeleteIn } from './dangerous-command';
import { parseShell } from './shell-parse';

const places = { workspace: '/work/project', home: '/home/dev' };

async function check(line: string): Promise<string | null> {
  const { commands } = await parseShell(line);
  for (const command of commands) {
    const hit = catastrophicDelete(command, places);
    if (hit) return hit;
  }
  return null;
}

describe('catastrophicDelete', () => {
  it('refuses a recursive rm of /, ~ and the workspace in every spelling', async () => {
    for (const line of [
      'rm -rf /',
      'rm -rf /*',
      'rm -fr ~',
      'rm -rf ~/',
      'rm -Rf "$HOME"',
      'rm -rf ${HOME}/*',
      'rm --recursive --force /work/project',
      'rm -rf .',
      'rm -rf ./*',
      'rm -rf *',
      'sudo rm -rf /',
      'cd x && rm -r -f -- /',
      'echo $(rm -rf ~)',
      'rm -rf $PWD',
    ]) {
      expect(await check(line), line).not.toBeNull();
    }
  });
  it('refuses folders that contain the workspace or the home folder', async () => {
    expect(await check('rm -rf ..')).toContain('a folder that contains the workspace');
    expect(await check('rm -rf /home')).toContain('your home folder');
  });
  it('looks into scripts handed to a shell or eval', async () => {
    for (const line of ["bash -c 'rm -rf ~'", 'sh -lc "cd / && rm -rf /"', "sudo bash -c 'rm -rf /'", "eval 'rm -rf $HOME'", 'bash -c "sh -c \'rm -rf .\'"']) {
      expect((await catastrophicDeleteIn(await parseShell(line), places))?.target, line).toBeTruthy();
    }
    for (const line of ["bash -c 'rm -rf build'", 'bash script.sh -c x', "eval 'echo hi'"]) {
      expect(await catastrophicDeleteIn(await parseShell(line), places), line).toBeNull();
    }
  });
  it('lets ordinary deletes through to the normal rules', async () => {
    for (const line of [
      'rm -rf build',
      'rm -rf ./dist/',
      'rm -rf /tmp/cache',
      'rm ~/notes.txt',
      'rm -f /',
      'rm -rf "$OUT"',
      'rm -rf ~/project-old',
      'git rm -r src',
    ]) {
      expect(await check(line), line).toBeNull();
    }
  });
});

describe('catastrophicDelete with a working directory', () => {
  it('resolves relative targets against the command cwd', async () => {
    const at = { workspace: '/w/app', home: '/home/u', cwd: '/w/app/sub' };
    const first = async (text: string) => (await parseShell(text)).commands[0]!;
    expect(catastrophicDelete(await first('rm -rf .'), at)).toBeNull();
    expect(catastrophicDelete(await first('rm -rf ..'), at)).toContain('the workspace');
    expect(catastrophicDelete(await first('rm -rf *'), { ...at, cwd: '/' })).toContain('the root folder');
  });
});
