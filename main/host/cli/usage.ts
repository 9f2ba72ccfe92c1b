// The CLI's help texts, kept apart from the commands so `deft --help` loads nothing else.

export const USAGE = `Usage: deft run [options] <prompt>

Runs a prompt headless in a workspace and prints the final answer. When the agent leaves background
tasks running (or pursues a goal), deft waits for them and lets the agent react, then prints the
last answer; Ctrl-C stops everything.

Options:
  --workspace <dir>          workspace root (default: current directory)
  --remote <host>:<dir>      a folder on another machine over SSH: [user@]host[:port]:/abs/path or
                             ssh://[user@]host[:port]/abs/path (host may be a ~/.ssh/config alias). Sessions,
                             settings and secrets stay here; an unknown host key is refused with the line to add
  --provider <kind>          openai (any OpenAI-compatible Chat Completions endpoint) | anthropic
  --base-url <url>           e.g. http://127.0.0.1:11434/v1
  --model <name>
  --api-key <key>            or the DEFT_API_KEY environment variable
  --permission-mode <mode>   ask | accept-edits | yolo (default ask). Nobody can approve a call in a
                             headless run: what the mode and rules do not allow is refused, with the
                             rule that would allow it
  --sandbox <on|off>         run commands in the OS sandbox (bubblewrap on Linux, Seatbelt on macOS);
                             default on where available, else the "sandbox.enabled" setting decides
  --output-format <fmt>      text (default: the final answer on stdout) | stream-json (one event per line) |
                             json (one result object at the end: type "result", subtype, is_error, result,
                             session_id, duration_ms, num_turns, usage, total_cost_usd when the model is priced)
  --input-format <fmt>       text (default: the prompt from the arguments; "-" reads it from stdin) | stream-json:
                             a long-lived run reading JSON lines on stdin (needs --output-format stream-json):
                             {"type":"user","message":{"role":"user","content":"…"}} (content a string or text
                             blocks), {"type":"steer","text":"…"}, {"type":"approval","id":"<requestId>",
                             "decision":"allow"|"deny"}, {"type":"question",...}, {"type":"interrupt"}. Approvals
                             are asked on stdout (approval.requested) and answered there; a bad line gets an
                             input.error event and is skipped. Ends when stdin closes and the last turn is done
  --max-steps <n>            stop after n model steps (exit 4)
  --max-turns <n>            the same budget under Claude Code's name (with both, the smaller counts)
  --effort <level>           off | low | medium | high | max: the session's reasoning effort, as the window's
                             chip sets it (OpenAI-compatible: reasoning_effort, max is xhigh; Anthropic: thinking)
  --append-system-prompt <text>  add this text at the end of the system prompt
  --json-schema <file|json>  the final answer must be JSON valid against this JSON Schema (a file, or the schema
                             itself): the model is told it; an answer that does not pass goes back to it with the
                             errors (3 answers in all, else exit 1). The json result carries it as structured_output
  --allowed-tools <rules>    rules allowed without asking for this run, as "approve for session" allows them
                             (repeatable; commas or spaces between rules: "Read,Bash(git diff:*) Edit",
                             mcp__server__tool). Deny rules, protected paths and the hard walls still hold
  --permission-prompt-tool <mcp__server__tool>  an MCP tool (of a --mcp-config server) that answers approvals
                             headless, with Claude Code's contract; its allow is an "approve once". Protected
                             paths are never put to it; a changed input, bad JSON or a failed call is a refusal
  --disallowed-tools <rules> deny rules for this run (repeatable, same grammar); a bare tool name (or name
                             pattern) is not even offered to the model. The json result lists refused calls
                             as permission_denials
  --skills-dir <dir>         load skills only from this folder (repeatable), instead of the workspace and user skill folders
                             (a folder on this machine, also with --remote)
  --mcp-config <file>        add the MCP servers of this file ({"mcpServers": {...}}; repeatable); they run on this
                             machine, also with --remote
  --mcp-server <name>        start this server of the folder's .mcp.json or .deft/mcp.json for this run
                             (repeatable; the folder must be trusted). Without it, a workspace server starts
                             only once approved: deft mcp approve NAME, or in the Deft window
  --worktree[=<name>]        run in a new git worktree on the branch deft/<name> (a name is made from the prompt
                             when none is given), under ~/.deft/worktrees: the main checkout is left untouched;
                             with --remote, made on that machine (under ~/.deft/worktrees there)
  --worktree-base <ref>      the branch, tag or commit the worktree starts from (default: HEAD)
  --session <id>             resume a session (one that ran on a remote folder reconnects to it)
  --continue                 resume the latest session of this workspace
  --mailbox                  with --session, no prompt: run what another Deft posted to that session's mailbox
                             (a worktree conflict handed to it), taken exactly once
  --fork <id>                run in a new session holding session <id>'s conversation (the original is untouched;
                             one that ran on a remote folder reconnects to it)
  --at <n>                   with --fork: only up to the end of prompt n (counted from 1, as "deft checkpoints"
                             lists them; default all of it, up to the last finished turn while one runs)
  --fork-files <keep|restore>  with --fork: leave the files as they are (default), or put them back as they were at
                             that point from the checkpoints (as a code rewind of the fork: files changed outside
                             the turns are kept)
  -h, --help                 show this help

Provider settings fall back to DEFT_PROVIDER, DEFT_BASE_URL, DEFT_MODEL, DEFT_API_KEY, then to the saved settings.
Exit codes: 0 the turn ended normally, 1 provider or runtime error, 2 usage error, 3 a UserPromptSubmit hook
refused the prompt (a bad --json-schema is 2; an answer that never passed it is 1), 4 out of budget (--max-steps / --max-turns), 5 the remote folder could not be opened (unreachable,
host key or login refused, no such folder), 130 interrupted, 141 stdout closed by its reader.`;

export const REWIND_USAGE = `Usage: deft rewind [--workspace DIR | --remote HOST:/path] (--session ID | --continue) --to N [--scope both|code|conversation] [--include-outside]
       deft rewind [--workspace DIR | --remote HOST:/path] (--session ID | --continue) --undo
       deft checkpoints [--workspace DIR | --remote HOST:/path] (--session ID | --continue) [--json]

rewind       Put the session back to just before its prompt N (numbered from 1, as "deft checkpoints" lists
             them): the workspace's files (code), what the model reads (conversation), or both (the default).
             Files changed outside the session's turns since that prompt (your own edits, also those saved
             while a turn ran) are left as they are and listed, unless --include-outside is given. --undo takes the last rewind back (until the next turn runs).
checkpoints  List the session's prompts with their time and how many files changed from each to the next.
--remote     A folder on another machine (as with deft run; a session that ran there is found with --session alone):
             its checkpoints are kept there, under ~/.deft/checkpoints.

Exit codes: 0 done, 1 runtime error (or files that could not be restored), 2 usage error, 5 the remote folder could not be opened.`;

export const MCP_USAGE = `Usage: deft mcp list [--workspace DIR] [--json]
       deft mcp approve NAME [--workspace DIR]
       deft mcp deny NAME [--workspace DIR]

mcp list     The MCP servers of your ~/.deft/mcp.json and of this folder's .mcp.json and .deft/mcp.json, and
             whether each may start. Nothing is started.
mcp approve  Approve a server this folder defines, as it is defined now (a later change to its command,
             arguments, variables or URL needs approving again). The folder must be trusted first. deft run
             starts a workspace's servers only once approved (here or in the Deft window), or allowed by
             name: --mcp-server NAME for one run, "enabledMcpjsonServers": [NAME] in ~/.deft/settings.json.
mcp deny     Record that it must not start.

Exit codes: 0 done, 1 refused (the reason on stderr), 2 usage error.`;

export const WORKTREES_USAGE = `Usage: deft worktrees [list] [--workspace DIR | --remote HOST:/path] [--json]
       deft worktrees create [NAME] [--base REF]
       deft worktrees merge NAME [--squash] [-m MESSAGE | --draft-message]
       deft worktrees branch NAME [-m MESSAGE]
       deft worktrees apply NAME
       deft worktrees discard NAME [--delete-branch]
       deft worktrees resolve NAME [deft run options: --permission-mode, --model, --sandbox, --output-format …]
       deft worktrees cleanup

list      The worktrees Deft made for this repository: branch, base, changed files, commits ahead of and behind
          the base, sessions run in each, and whether it has uncommitted changes.
create    A worktree on a new branch deft/NAME from HEAD (or --base), with the "worktree.copy" files.
merge     Commit its uncommitted changes on its branch, then merge (or --squash) the branch onto its base branch.
          A conflict is reported file by file and nothing is changed; so is a checkout of the base branch with
          uncommitted changes in the files the merge changes. The message is -m's, else a default one;
          --draft-message has the configured model draft it from the diff (the default if it fails, said on stderr).
branch    Create branch only: commit its uncommitted changes on its branch (-m MESSAGE), remove the worktree,
          keep the branch.
apply     Its changes as uncommitted changes in the main checkout (all or nothing).
discard   Remove the worktree and its uncommitted changes; --delete-branch removes its branch too.
resolve   After a merge conflict: merge the base branch into its branch in the worktree (the main checkout is not
          touched), hand the conflict to its newest session and run that session's turn on it now, headless
          (deft run --mailbox): it resolves the files and commits the merge there. A conflict already handed to it
          (from a window) is taken as it is. Then: deft worktrees merge NAME.
cleanup   git worktree prune, and forget worktrees whose folder is gone.

--remote HOST:/path (every action but resolve): the repository of a folder on another machine, over SSH as deft run
          --remote opens it; its worktrees are on that machine (under ~/.deft/worktrees there) and git runs there.

Exit codes: 0 done, 1 refused or a conflict (the reason on stderr), 2 usage error, 5 the remote folder could not be opened.`;

export const PLUGIN_USAGE = `Usage: deft plugin marketplace add SOURCE | list | update [NAME] | remove NAME
       deft plugin install NAME@MARKETPLACE
       deft plugin list [--workspace DIR] [--json]
       deft plugin enable|disable|update|remove NAME[@MARKETPLACE]

marketplace add   A folder, or a git repository (https://, file://, or owner/name on GitHub, cloned into
                  ~/.deft/plugins/marketplaces/), holding .claude-plugin/marketplace.json.
marketplace list  Each marketplace's plugins and what each brings (skills, commands, agents; hooks and MCP
                  servers run code).
install           Copy the plugin into ~/.deft/plugins/MARKETPLACE/NAME/ and enable it. Installing is your act of
                  trust: its hooks run and its MCP servers start as your own.
list              Installed plugins, enabled or not, what each brings, and the plugins this workspace's
                  .deft/settings.json suggests ("enabledPlugins"; never installed by themselves).
enable, disable   Switch all of a plugin's parts on or off. update fetches it again; remove deletes it.

Exit codes: 0 done, 1 refused (the reason on stderr), 2 usage error. See docs/plugins.md.`;

export const ACP_USAGE = `Usage: deft acp [--provider <kind>] [--base-url <url>] [--model <name>] [--api-key <key>]
                [--sandbox on|off] [--mcp-config <file>]
       deft acp --setup

acp          Serve the Agent Client Protocol on stdin/stdout, for editors that host agents (Zed, JetBrains IDEs):
             the editor starts it, opens sessions in its project folder and asks you for approvals. Provider
             flags and DEFT_* variables as for deft run. See docs/acp.md.
--setup      Ask for a model provider (protocol, base URL, model, API key) in this terminal, test it and save
             it, as an editor's "Set up a model provider" sign-in runs it.`;

/** What `deft --help` prints. */
export const HELP = `${USAGE}\n\n${REWIND_USAGE}\n\n${MCP_USAGE}\n\n${WORKTREES_USAGE}\n\n${PLUGIN_USAGE}\n\n${ACP_USAGE}`;
