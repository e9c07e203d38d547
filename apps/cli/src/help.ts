/** The complete `mh --help` text. */
export const HELP = `mh — the mini-harness agent at your terminal

Usage:
  mh --fake "What is 6*7?"     answer one prompt, then exit
  mh --provider anthropic "Summarise README.md"   use Claude (ANTHROPIC_API_KEY)
  mh --fake                    start a REPL (reads prompts line by line; also from a pipe)
  printf 'q1\\nq2\\n' | mh --fake  answer each piped line in one conversation, exit at end of input

Provider:
  --fake                  the offline fake model (no key, no network); same as --provider fake
  --provider NAME         fake, anthropic (needs ANTHROPIC_API_KEY) or openai (needs OPENAI_API_KEY)
  -m, --model ID          model id (defaults: claude-sonnet-4-5, gpt-4o, fake)
  --base-url URL          another endpoint: an Anthropic proxy, or any OpenAI-compatible server
                          (vLLM, Ollama, DeepSeek, OpenRouter…; a key is then optional)
  --api chat|responses    OpenAI API to use (default chat: Chat Completions)
  Real providers retry overloaded, rate-limited and broken calls with backoff (withRetry).

Agent:
  --system TEXT           system prompt
  --max-turns N           most model calls per prompt (default 50)
  --timeout-ms N          hard wall-clock limit per prompt, in milliseconds
  --max-output-tokens N   most tokens the model may write per call (default: the provider's;
                          Anthropic 8192). An answer cut off there is named on stderr (exit 4)
  --context-window N      the model's context window in tokens (default: the model's own; the
                          fake has none). Over 80% of it, old tool output is trimmed, then old
                          turns summarised, identifiers kept; mh prints a line per compaction.
                          Small values (e.g. 2000) let you watch it offline with --fake.
                          Accepted: 1000 to 10000000.
  --no-compaction         never trim or summarise the history (excludes --context-window)
  --root DIR              folder the workspace tools may read (default: current folder)
  --grant PERM            allow tools that need PERM without asking: write or exec (repeatable).
                          Otherwise such a call waits for approval: at a terminal mh asks
                          allow TOOL {"arg":…}? [y/N/a(lways)] (a: allow that tool for the rest
                          of this mh); piped or one-shot, the run ends with the calls waiting (exit 5)
  --fake-delay-ms N       pause between the fake model's stream chunks, to watch streaming (default 0)

Sessions (SQLite or PostgreSQL; each turn committed, each tool call journaled, crash-safe):
  --db PATH|URL           keep the conversation in this SQLite file, or in a PostgreSQL database
                          shared by many machines (postgres://user@host/db). A new session creates
                          the file; --list-sessions and --session refuse one that does not exist
  --session ID            resume session ID (default with --db: a new session; its id is printed).
                          One mh at a time per session of a SQLite file: a second one exits 2
                          while the first runs (lock file PATH.ID.lock; a crashed mh's is taken
                          over). PostgreSQL sessions, shared across machines, take no lock: there
                          the store's conflict errors stop a second writer
  --list-sessions         list the sessions in --db (id, turns, updated, branch, title) and exit
  --approve CALL_ID       approve a call of --session that waits for approval, and resume (repeatable)
  --deny CALL_ID[=MSG]    refuse it; the model reads MSG (repeatable). A waiting call survives the
                          exit: mh --db PATH --session ID asks again at a terminal, or lists it
  --answer CALL_ID=TEXT   answer the question a tool of --session asked (its text), and resume: the
                          call runs again with the answer (repeatable)
  --answer-json CALL_ID=JSON  the same with a JSON answer (a number, an object, …)
  REPL: /checkpoints  /rewind TURN [BRANCH]  /fork BRANCH  /branches  /switch BRANCH

Durable runs (DBOS over PostgreSQL: a killed worker's run continues on another; see @mh/durable-dbos):
  mh worker --db postgres://… --fake   run a worker: it takes runs from the queue with the agent its
                          flags describe (provider, model, tools, --grant); start as many as you like
  --enqueue PROMPT        with --db postgres://…: enqueue a run for the workers, follow it, print the
                          answer (a new session, or --session ID). Ungranted calls wait (exit 5):
  --workflow ID           follow run ID; with --approve/--deny, answer its waiting calls first
  --queue NAME            the queue (default agents); --concurrency N: most runs at once on this worker

MCP servers (their tools join the built-in ones, named SERVER__TOOL; so NAME has no '__'):
  --mcp NAME=COMMAND      start an MCP server over stdio, e.g.
                          --mcp fs="npx -y @modelcontextprotocol/server-filesystem ./data" (repeatable)
  --mcp NAME=URL          reach an MCP server over streamable HTTP, e.g. --mcp api=http://localhost:3000/mcp
                          Tools are exec unless the server marks them read-only: allow with --grant exec.
                          A server's changed tool list is followed; servers are stopped when mh exits.
  --mcp-timeout-ms N      how long each server gets to start and answer the handshake (default 30000)
  --list-tools            list every tool, its permission and server, then exit

Tracing:
  --trace                 after each answer, print the run's span tree (model calls, tools, tokens,
                          cost, durations, errors) and its metrics on stderr (OpenTelemetry spans)

Record and replay (a JSONL cassette of every model call and tool result; see @mh/eval):
  --record FILE           record this run into FILE (a new file) with any provider, --fake included;
                          a run that ends with calls waiting is resumed with the same --record FILE
                          and --approve/--deny, which adds the resume to FILE
  --replay FILE           replay FILE with no provider, no API key and no network: the recorded answers
                          and write/exec tool results are served (those tools do not run again); read
                          tools run again and a changed result is drift; every drift from the
                          recording (system prompt, tools, messages, parameters, compactions, tool
                          results, fewer or more calls) is listed on stderr and exits 3. With --fake or --provider, calls beyond
                          the recording go to that provider and are appended to FILE. A recorded
                          resume replays with the same --replay FILE and --approve/--deny.

Other:
  -h, --help              show this help and exit
  -v, --version           show the version and exit

Tools: calculator, and the read-only workspace tools read_file, list_dir, grep, glob (confined to --root).
Tool calls are shown on stderr as they happen; the answer streams to stdout.

REPL: Ctrl-C cancels the current answer (the conversation stays valid); a second Ctrl-C exits (130).
  With piped input the second Ctrl-C may come at any later line: it stops the batch.
  /help  the REPL commands    /reset  forget the conversation    /history  show it    /exit  leave

Exit codes: 0 answered, 1 the run failed or a guard stopped it, 2 bad command line (or its
  --session is in use by another mh),
  3 a replay drifted from its recording, 4 the answer was cut off at the output limit (printed,
  but incomplete), 5 tool calls wait for approval or an answer (listed on stderr with the
  --approve/--deny/--answer command line that answers them), 130 interrupted, 143 (SIGTERM) or 129 (SIGHUP) terminated:
  as for Ctrl-C, the answer under way is cancelled and recorded first.
  Piped input runs every line, even after one fails (a refused /command prints one line), and
  exits with the worst code of its lines and of the resume at start (with --session, a turn a
  crash interrupted is finished first): a refused /command counts as 2, a line cancelled by
  Ctrl-C as 130; waiting calls (5), then a cut-off answer (4), only when nothing did worse.
  A terminal REPL exits 0 at /exit or the end of input (Ctrl-D), and 130 on a second Ctrl-C.
`;

/** What `/help` prints in the REPL: its commands, briefly; the flags are `mh --help`'s. */
export const REPL_HELP = `REPL commands:
  /help                   these commands
  /exit, /quit            leave (so does the end of input, Ctrl-D)
  /reset                  forget the conversation (with --db: go on from empty on a new branch)
  /history                show the conversation, one line per message
  /checkpoints            list this branch's turns (needs --db)
  /rewind TURN [BRANCH]   go back to TURN on a new branch (TURN from /checkpoints; 0 = empty)
  /fork BRANCH            copy this branch as BRANCH and go on there
  /branches               list the session's branches (* marks the current one)
  /switch BRANCH          go on on another branch
Anything else is a prompt. Ctrl-C cancels the answer; a second Ctrl-C exits.
Command-line flags: mh --help
`;
