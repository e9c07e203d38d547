// The child process of the Agent conformance suite's crash command: it builds the same agent as
// the suite's parent (the suite's ScriptedModel and tools, on the same SQLite file), runs one
// prompt (or resumes with the job's decisions), and is SIGKILLed by its store wrapper right
// after its `writes`-th write. Plain Node (children cannot load `.ts`), so it imports the BUILT
// packages by name.
//
//   node conformance-crash-worker.mjs <db file> <job JSON>
import { killAfterWrites, ScriptedModel, sideEffectTools } from '@mh/conformance';
import { Agent } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';

const [path, jobText] = process.argv.slice(2);
const job = JSON.parse(jobText);
const store = killAfterWrites(await openSqliteStore(path), job.writes);
const model = new ScriptedModel(job.callPrefix);
model.plan(job.label, job.plan);
const agent = new Agent({
  provider: model,
  model: 'claude-sonnet-4-5',
  tools: sideEffectTools(job.sideFile).tools,
  permissions: { grants: ['write', 'exec'] },
  session: { store, id: job.sessionId },
  ...(job.contextWindow === undefined
    ? {}
    : { compaction: { contextWindow: job.contextWindow, keepRecentTokens: 200 } }),
});
// Whatever the run does, the kill comes from the store; a run that writes less ends normally.
if (job.decisions) await agent.resume({ decisions: job.decisions });
else await agent.run(job.prompt);
process.exit(0);
