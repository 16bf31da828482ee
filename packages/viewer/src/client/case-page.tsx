import type { CaseResponse } from '../shared/api-types.js';
import { api } from './api.js';
import { DiffView } from './diff-view.js';
import { asText, cost, duration, score, when } from './format.js';
import { href } from './router.js';
import { TraceTimeline } from './trace-timeline.js';
import { useData } from './use-data.js';
import { ErrorBox, Loading, Section, Stat, TextBlock } from './widgets.js';

type Json = Record<string, unknown>;

// Newer result lines may record the prompt and the expected outcome under one of these names.
const PROMPT_KEYS = ['input', 'input_messages', 'prompt', 'question'];
const EXPECTED_KEYS = ['expected_output', 'expected_outcome', 'reference_answer', 'expected'];

function firstOf(record: Json, keys: string[]): unknown {
  for (const key of keys) if (record[key] !== undefined && record[key] !== null) return record[key];
  return undefined;
}

export function CasePage({ runKey, line }: { runKey: string; line: number }) {
  const { data, error } = useData(() => api.case(runKey, line), [runKey, line], [runKey]);
  if (data === undefined) return error ? <ErrorBox message={error} /> : <Loading />;
  return <CaseView response={data} />;
}

function CaseView({ response }: { response: CaseResponse }) {
  const record = response.record as Json;
  const graders = (record.evaluator_results as Json[] | undefined) ?? [];
  const trace = record.trace as Parameters<typeof TraceTimeline>[0]['events'] | null | undefined;
  const repeats = record.repeats as { reducer: string; runs: Json[] } | undefined;
  const turns = record.turns as unknown[] | undefined;
  const workspace = record.workspace as Json | undefined;
  const verdict = record.error !== undefined ? 'errored' : record.passed ? 'passed' : 'failed';
  return (
    <main class="page case-page">
      <nav class="crumbs">
        <a href={href('history')}>Runs</a> <span>/</span>{' '}
        <a href={href('run', { key: response.run })}>{response.run}</a> <span>/</span>{' '}
        <span class="crumb-current">line {response.line}</span>
      </nav>
      <h1 class="title" data-testid="case-id">
        {asText(record.eval_id)}
      </h1>
      <p class="meta">
        <span class={`badge ${verdict}`}>{verdict}</span> {asText(record.target)} ·{' '}
        {asText(record.eval_file ?? record.dataset)} · {when(record.timestamp as string)}
      </p>
      <section class="stats">
        <Stat label="Score" value={score(record.score as number)} tone={verdict} />
        <Stat label="Attempts" value={String(record.attempts)} />
        <Stat label="Time" value={duration(record.duration_ms as number)} />
        <Stat label="Cost" value={cost(record.cost_usd as number | undefined)} />
      </section>
      {record.error !== undefined ? (
        <div class="error" role="alert" data-testid="case-error">
          {asText(record.error)}
        </div>
      ) : null}
      <section class="side-by-side">
        <Section title="Prompt">
          <TextBlock
            value={firstOf(record, PROMPT_KEYS)}
            empty="Not recorded in the result line (use --dump-prompts)."
            testid="prompt"
          />
        </Section>
        <Section title="Answer">
          <TextBlock value={record.candidate_answer} testid="answer" />
        </Section>
        <Section title="Expected">
          <TextBlock
            value={firstOf(record, EXPECTED_KEYS)}
            empty="Not recorded in the result line."
            testid="expected"
          />
        </Section>
      </section>
      <Section title="Graders" testid="graders">
        {graders.length === 0 ? <p class="muted">No grader.</p> : null}
        {graders.map((grader, index) => (
          <Grader grader={grader} key={index} />
        ))}
      </Section>
      {turns !== undefined && Array.isArray(turns) && turns.length > 0 ? (
        <Section title="Conversation" testid="turns">
          <ol class="turns">
            {turns.map((turn, index) => (
              <li key={index} class="turn">
                <h3>Turn {index + 1}</h3>
                <Turn turn={turn} />
              </li>
            ))}
          </ol>
        </Section>
      ) : null}
      <Section title="Trace" testid="trace">
        {Array.isArray(trace) && trace.length > 0 ? (
          <TraceTimeline events={trace} />
        ) : (
          <p class="muted">
            {record.trace_summary
              ? `${asText((record.trace_summary as Json).eventCount)} events; run with --include-trace to keep them in the result file.`
              : 'No trace.'}
          </p>
        )}
      </Section>
      {workspace !== undefined || response.workspace !== null ? (
        <Section title="Workspace" testid="workspace">
          {workspace !== undefined ? (
            <p class="meta">
              {asText(workspace.files_changed)} file(s) changed, +{asText(workspace.insertions)} −
              {asText(workspace.deletions)}
              {workspace.kept_at !== undefined ? (
                <>
                  {' · kept at '}
                  <code class="path" data-testid="kept-at">
                    {asText(workspace.kept_at)}
                  </code>
                </>
              ) : null}
            </p>
          ) : null}
          {response.workspace !== null ? (
            <>
              <ul class="files">
                {response.workspace.files.map((file) => (
                  <li key={file.path}>
                    <span class={`status ${file.status}`}>{file.status}</span>{' '}
                    <code>{file.path}</code> +{file.insertions} −{file.deletions}
                  </li>
                ))}
              </ul>
              {response.workspace.diff !== '' ? <DiffView diff={response.workspace.diff} /> : null}
            </>
          ) : (
            <p class="muted">The run saved no diff for this case.</p>
          )}
        </Section>
      ) : null}
      {repeats !== undefined ? (
        <Section title={`Repeats (${repeats.reducer})`} testid="repeats">
          <div class="repeats">
            {repeats.runs.map((run) => (
              <div
                class={`repeat ${run.error ? 'errored' : run.passed ? 'passed' : 'failed'}`}
                key={asText(run.repeat)}
              >
                <strong>#{asText(run.repeat)}</strong>
                <span>score {score(run.score as number)}</span>
                <span>{run.passed ? 'passed' : 'failed'}</span>
                <span>{duration(run.duration_ms as number)}</span>
                <span>{asText(run.attempts)} attempt(s)</span>
                {run.error ? <span class="wrap">{asText(run.error)}</span> : null}
              </div>
            ))}
          </div>
        </Section>
      ) : null}
      {response.artifacts.length > 0 ? (
        <Section title="Saved files" testid="artifacts">
          <ul class="files">
            {response.artifacts.map((artifact) => (
              <li key={artifact.href}>
                <a href={artifact.href} target="_blank" rel="noopener noreferrer">
                  {artifact.label}
                </a>
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
      <details class="raw">
        <summary>The result line</summary>
        <pre class="text">{JSON.stringify(record, null, 2)}</pre>
      </details>
    </main>
  );
}

function Grader({ grader }: { grader: Json }) {
  const hits = (grader.hits as string[] | undefined) ?? [];
  const misses = (grader.misses as string[] | undefined) ?? [];
  const members = grader.members as Json[] | undefined;
  return (
    <div class={`grader ${asText(grader.verdict)}`}>
      <h3>
        <span class={`badge ${asText(grader.verdict)}`}>{asText(grader.verdict)}</span>{' '}
        {asText(grader.name)}{' '}
        <span class="muted">
          {asText(grader.type)}
          {grader.metric !== undefined ? ` · ${asText(grader.metric)}` : ''} · score{' '}
          {score(grader.score as number)} · weight {asText(grader.weight)}
        </span>
      </h3>
      {grader.error !== undefined ? <p class="error">{asText(grader.error)}</p> : null}
      {hits.length > 0 ? (
        <ul class="hits">
          {hits.map((hit, index) => (
            <li key={index}>✓ {asText(hit)}</li>
          ))}
        </ul>
      ) : null}
      {misses.length > 0 ? (
        <ul class="misses">
          {misses.map((miss, index) => (
            <li key={index}>✗ {asText(miss)}</li>
          ))}
        </ul>
      ) : null}
      {grader.reasoning ? <pre class="text reasoning">{asText(grader.reasoning)}</pre> : null}
      {members?.map((member, index) => (
        <div class="member" key={index}>
          <Grader grader={member} />
        </div>
      ))}
    </div>
  );
}

/** A conversation turn of whatever shape: its input and answer when named, else the whole turn. */
function Turn({ turn }: { turn: unknown }) {
  if (turn === null || typeof turn !== 'object') return <TextBlock value={turn} />;
  const named = turn as Json;
  const input = firstOf(named, ['input', 'user', 'prompt', 'input_messages']);
  const answer = firstOf(named, ['candidate_answer', 'answer', 'output', 'assistant']);
  if (input === undefined && answer === undefined) return <TextBlock value={turn} />;
  return (
    <div class="side-by-side two">
      <div>
        <h4>Input</h4>
        <TextBlock value={input} />
      </div>
      <div>
        <h4>Answer {named.score !== undefined ? `(score ${score(named.score as number)})` : ''}</h4>
        <TextBlock value={answer} />
      </div>
    </div>
  );
}
