import { parseArgs } from 'node:util';
import type { PluginContents } from '#infra/plugins/describe';
import { type PluginOverview, pluginOverview, updatePlugin } from '#infra/plugins/catalog';
import { installPlugin, removePlugin, setPluginEnabled } from '#infra/plugins/install';
import { addMarketplace, listMarketplaces, refreshMarketplace, removeMarketplace } from '#infra/plugins/marketplaces';
import { type CliIo, parseArgsOr } from './io';
import { PLUGIN_USAGE } from './usage';
import { cliHome } from './worktrees-cli';

class UsageError extends Error {}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/** One line per part a plugin brings; hooks and MCP servers marked as running code. */
export function contentsLines(contents: PluginContents, indent = '    '): string[] {
  const lines: string[] = [];
  const add = (label: string, names: string[]) => names.length && lines.push(`${indent}${label}: ${names.join(', ')}`);
  add('skills', contents.skills);
  add(
    'commands',
    contents.commands.map((c) => `/${c}`),
  );
  add('agents', contents.agents);
  add(
    'hooks (run code)',
    contents.hooks.map((h) => `${h.event}: ${h.command}`),
  );
  add(
    'MCP servers (run code)',
    contents.mcpServers.map((s) => `${s.name}: ${s.command}`),
  );
  for (const problem of contents.problems) lines.push(`${indent}problem: ${problem}`);
  if (!lines.length) lines.push(`${indent}(nothing Deft uses)`);
  return lines;
}

function overviewText(overview: PluginOverview): string {
  const lines: string[] = [];
  if (!overview.installed.length)
    lines.push('No plugins installed. Add a marketplace (deft plugin marketplace add SOURCE), then: deft plugin install NAME@MARKETPLACE');
  else lines.push('Installed plugins:');
  for (const p of overview.installed) {
    lines.push(`  ${p.name}@${p.marketplace}${p.version ? ` ${p.version}` : ''}  ${p.enabled ? 'enabled' : 'disabled'}`);
    if (p.contents) lines.push(...contentsLines(p.contents));
    if (p.error) lines.push(`    not usable: ${p.error}`);
  }
  if (overview.suggested.length)
    lines.push(
      `This workspace suggests: ${overview.suggested.join(', ')} (not installed; install them yourself if you trust them: deft plugin install NAME@MARKETPLACE)`,
    );
  return `${lines.join('\n')}\n`;
}

/** `deft plugin …`. Returns the exit code: 0 done, 1 refused (the reason on stderr), 2 usage. */
export async function runPluginCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgsOr(() => parse(argv.slice(1)), PLUGIN_USAGE, io);
  if (parsed === 2) return 2;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${PLUGIN_USAGE}\n`);
    return 0;
  }
  const home = cliHome(io);
  const [action = 'list', ...rest] = positionals;
  const json = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  const one = (what: string): string => {
    if (rest.length !== 1) throw new UsageError(rest.length ? `unexpected argument "${rest[1]}"` : `say which: deft plugin ${action} ${what}`);
    return rest[0]!;
  };
  try {
    switch (action) {
      case 'marketplace':
        return await marketplace(rest, io, home, values.json);
      case 'list': {
        if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
        const overview = await pluginOverview(home, values.workspace ?? io.cwd);
        if (values.json) json(overview);
        else io.stdout(overviewText(overview));
        return 0;
      }
      case 'install': {
        const record = await installPlugin(home, one('NAME@MARKETPLACE'));
        if (values.json) json(record);
        else
          io.stdout(
            `Installed ${record.name}@${record.marketplace}${record.version ? ` ${record.version}` : ''} (${record.enabled ? 'enabled' : 'disabled'}) in ${record.path}\n`,
          );
        return 0;
      }
      case 'enable':
      case 'disable': {
        const record = await setPluginEnabled(home, one('NAME[@MARKETPLACE]'), action === 'enable');
        io.stdout(`${record.name}@${record.marketplace} is ${record.enabled ? 'enabled' : 'disabled'}.\n`);
        return 0;
      }
      case 'update': {
        const record = await updatePlugin(home, one('NAME[@MARKETPLACE]'));
        io.stdout(`Updated ${record.name}@${record.marketplace}${record.version ? ` to ${record.version}` : ''}.\n`);
        return 0;
      }
      case 'remove':
      case 'uninstall': {
        const record = await removePlugin(home, one('NAME[@MARKETPLACE]'));
        io.stdout(`Removed ${record.name}@${record.marketplace}.\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown action "${action}": marketplace, install, list, enable, disable, update, remove`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`deft: ${error.message}\n\n${PLUGIN_USAGE}\n`);
      return 2;
    }
    io.stderr(`deft: ${(error as Error).message}\n`);
    return 1;
  }
}

async function marketplace(args: string[], io: CliIo, home: string, asJson: boolean): Promise<number> {
  const [action = 'list', name, extra] = args;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  switch (action) {
    case 'add': {
      if (!name) throw new UsageError('say which: deft plugin marketplace add SOURCE (a folder, an https:// or file:// repository, or owner/name on GitHub)');
      const added = await addMarketplace(home, name, io.cwd);
      if (asJson) io.stdout(`${JSON.stringify({ name: added.name, ...added.record, plugins: added.manifest.plugins.map((p) => p.name) }, null, 2)}\n`);
      else
        io.stdout(
          `Added marketplace ${added.name} (${added.manifest.plugins.length} plugins: ${added.manifest.plugins.map((p) => p.name).join(', ') || 'none'}).\n`,
        );
      return 0;
    }
    case 'list': {
      if (name !== undefined) throw new UsageError(`unexpected argument "${name}"`);
      const overview = await pluginOverview(home);
      if (asJson) {
        io.stdout(`${JSON.stringify(overview.marketplaces, null, 2)}\n`);
        return 0;
      }
      if (!overview.marketplaces.length) io.stdout('No marketplaces. Add one: deft plugin marketplace add SOURCE\n');
      for (const m of overview.marketplaces) {
        io.stdout(`${m.name}  (${m.kind}: ${m.source})${m.error ? `  not readable: ${m.error}` : ''}\n`);
        for (const p of m.plugins) {
          io.stdout(`  ${p.name}${p.version ? ` ${p.version}` : ''}${p.installed ? '  [installed]' : ''}${p.description ? ` — ${p.description}` : ''}\n`);
          if (p.contents) io.stdout(`${contentsLines(p.contents).join('\n')}\n`);
          else if (p.error) io.stdout(`    cannot be installed: ${p.error}\n`);
          else io.stdout(`    from ${p.from} (read when installed)\n`);
        }
      }
      return 0;
    }
    case 'update': {
      const names = name ? [name] : (await listMarketplaces(home)).map((m) => m.name);
      for (const n of names) await refreshMarketplace(home, n);
      io.stdout(`Updated ${names.length} marketplace(s).\n`);
      return 0;
    }
    case 'remove': {
      if (!name) throw new UsageError('say which: deft plugin marketplace remove NAME');
      const removed = await removeMarketplace(home, name);
      io.stdout(`Removed marketplace ${name}${removed.length ? ` and its plugins: ${removed.join(', ')}` : ''}.\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown action "marketplace ${action}": add, list, update, remove`);
  }
}
