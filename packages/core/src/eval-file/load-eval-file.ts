import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { DEFAULT_GUIDELINE_PATTERNS } from '../config/config-schema.js';
import type { Issue } from '../errors/input-issue.js';
import { closestMatch } from '../util/closest-match.js';
import { displayPath } from '../util/display-path.js';
import { findRepoRoot } from '../util/find-repo-root.js';
import { hasErrors, type LoadResult, sortIssues } from '../util/load-result.js';
import { readInputFile } from '../util/read-input-file.js';
import { isRecord, valueAt } from '../util/records.js';
import { searchDirectories } from '../util/search-directories.js';
import {
  mergeWorkspaceLayers,
  resolveWorkspaceConfig,
  type WorkspaceLayer,
} from '../workspace/resolve-workspace-config.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import {
  describeZodIssues,
  type IssueScope,
  type ProblemKind,
} from '../yaml/describe-zod-issues.js';
import { parseYamlMapping } from '../yaml/parse-yaml-mapping.js';
import type { SourceLocator, SourcePosition } from '../yaml/yaml-source.js';
import { buildConversation } from './build-conversation.js';
import { buildMessage, buildMessages, buildMessagesWithoutFiles } from './build-messages.js';
import { mergeRunSettings, type RunSettings, runSettingsOf } from './case-run-settings.js';
import { checkJudgeFiles } from './check-judge-files.js';
import { datasetCommandGraderIssues } from './dataset-command-graders.js';
import type {
  EvalCase,
  EvalFile,
  EvalMessage,
  EvaluatorPosition,
  RubricItem,
} from './eval-case.js';
import {
  type EvalCaseParsed,
  type EvaluatorEntryInput,
  evalCaseParseSchema,
  evalFileHeaderSchema,
  evalFileHint,
  isPlainValidCase,
  messageSchema,
  type RubricInput,
} from './eval-file-schema.js';
import {
  caseMisspellsGraders,
  evalFileUnknownKeyWarnings,
  fileMisspellsCases,
  fileMisspellsGraders,
} from './eval-file-unknown-keys.js';
import type { EvaluatorConfig } from './evaluator-config.js';
import { evaluatorPositions } from './evaluator-positions.js';
import { checkFileRootOnce, describeRefusal, fileRootsFor } from './file-roots.js';
import { normalizeEvaluators } from './normalize-evaluators.js';
import { datasetFormat, readDataset } from './read-dataset.js';
import { readWorkspaceBlock, type WorkspaceReading } from './read-workspace-block.js';
import { recordedTraceOf } from './recorded-trace-of.js';
import type { FileLookup } from './resolve-input-file.js';
import { expandUpstreamTests } from './upstream/expand-upstream-tests.js';
import {
  isUpstreamFormat,
  isUpstreamSuite,
  translateUpstreamFormat,
  UPSTREAM_NAMES,
} from './upstream/translate-upstream-format.js';

/** Where relative paths of an eval file resolve and which files are guidelines. */
export interface LoadEvalFileOptions {
  /** The current directory: resolves `filePath` and is the last place file blocks are looked up. Default `process.cwd()`. */
  cwd?: string;
  /** Where the upward search for file blocks stops. Default: the nearest ancestor holding `.git`. */
  repoRoot?: string;
  /** Globs of guideline files (from `.agentv/config.yaml`). Default `DEFAULT_GUIDELINE_PATTERNS`. */
  guidelinePatterns?: readonly string[];
  /**
   * The project root: files the eval file and its dataset name (attachments,
   * the dataset, prompt and schema files) must resolve inside it or an
   * allowed root. Default: the nearest folder at or above the eval file
   * holding `.agentv/` or `.git`, else the eval file's folder.
   */
  projectRoot?: string;
  /** More folders files may be in (absolute; `allowed_file_roots` of `.agentv/config.yaml`). */
  allowedFileRoots?: readonly string[];
  /**
   * Set `value` even when the file has errors, holding the cases that passed
   * validation, so a caller can check them further (targets, evaluators) and
   * report every problem at once. Such a value must never be run.
   */
  partial?: boolean;
  /**
   * Called with a dataset's size in bytes before its cases are read (a caller may prepare for
   * a large run: the CLI lets V8's young generation grow). Not passed to worker threads.
   */
  onDatasetSize?: (bytes: number) => void;
}

/** What every case of a file shares. */
interface FileDefaults {
  file: string;
  filePath: string;
  dataset: string;
  source: SourceLocator;
  target?: string;
  /** The file's `execution.targets` (one list, shared by the cases without their own). */
  targets?: string[];
  judgeTarget?: string;
  /** Where the file's target names are written (`EvalCase.targetPositions`). */
  targetPositions?: Record<string, SourcePosition>;
  threshold?: number;
  /** The file's `repeat_pass` and budget keys of `execution:`. */
  runSettings: RunSettings;
  repeat?: EvalCase['repeat'];
  /** The file's `tags` (each once), given to every case. */
  tags: string[];
  evaluators: EvaluatorConfig[];
  /** The file's `execution.evaluators` is written but has errors. */
  evaluatorsInvalid: boolean;
  evaluatorPositions: Record<string, EvaluatorPosition>;
  lookup: FileLookup;
  /** Set for a case read from a dataset: the line it starts on there. */
  datasetLine?: number;
  /** The file's `workspace:` block, when it has one without errors. */
  workspace?: WorkspaceLayer;
  /** Its resolved configuration, shared by every case that does not write its own. */
  workspaceConfig?: WorkspaceConfig;
  /** The hooks (`before_each`…) the file's block gives a command: a case may change their other keys. */
  workspaceHookCommands?: ReadonlySet<string>;
  /** Configurations of cases with their own block, by key: equal ones are one object. */
  workspaceConfigs: Map<string, WorkspaceConfig>;
  workspaceReading: WorkspaceReading;
  /** A `tests:` file (AgentV 2.7–4.x): its cases spell their keys as that format does. */
  upstream: boolean;
  /** Turns schema issues of the value at `prefix` into input issues. */
  describe(zodIssues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]): Issue[];
}

/**
 * Loads and validates an eval file (README, "Eval files"). Every problem in the file is
 * returned as an issue with its line; `value` is set only when there are no
 * errors (or, with `partial`, when the file could be parsed). Never throws
 * for a user mistake.
 */
export async function loadEvalFile(
  filePath: string,
  options: LoadEvalFileOptions = {},
): Promise<LoadResult<EvalFile>> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const absolutePath = path.resolve(cwd, filePath);
  const read = await readInputFile(absolutePath, filePath, 'eval file');
  if (read.value === undefined) return { issues: read.issues };
  const parsed = await parseYamlMapping(read.value, filePath, 'eval file', {
    splitKey: 'evalcases',
  });
  if (parsed.value === undefined) return { issues: parsed.issues };
  const issues: Issue[] = [...parsed.issues];
  let { source, data } = parsed.value;
  // A file of that format, not one of `evalcases:` read as one for a key of some case.
  const upstream = isUpstreamSuite(data);
  // A case file named by the file could not be read: that error is why it has no cases.
  let caseFileUnread = false;
  if (isUpstreamFormat(data)) {
    const expanded = await expandUpstreamTests(data, filePath, source, cwd);
    issues.push(...expanded.issues);
    caseFileUnread = expanded.issues.some((issue) => issue.severity === 'error');
    const translated = translateUpstreamFormat(
      expanded.data,
      filePath,
      source,
      process.env,
      expanded.origins,
    );
    data = translated.data;
    source = translated.source;
    issues.push(...translated.issues);
  }

  const describe = (zodIssues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]) =>
    describeZodIssues(
      zodIssues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] })),
      {
        file: filePath,
        source,
        data,
        showValues: true,
        scope: upstream
          ? (issuePath) => spelledAsTests(caseScope(data, issuePath))
          : (issuePath) => caseScope(data, issuePath),
        hint: upstream ? testsFileHint : evalFileHint,
      },
    );
  issues.push(...bothTargetKeysIssues(data, filePath, source));
  // Parsed once per file: compiling zod's fast path for it costs more than the parse itself.
  const header = evalFileHeaderSchema.safeParse(data, { jitless: true });
  if (!header.success) {
    const shown = caseFileUnread
      ? header.error.issues.filter((issue) => !isCaseListIssue(issue))
      : header.error.issues;
    issues.push(...describe(shown, []));
  }
  const noCases = data.evalcases === undefined && data.cases === undefined;
  // A misspelt list of cases (`evalcase:`, `test:`) is an error at its key, and the reason.
  if (noCases && !fileMisspellsCases(data, upstream)) {
    const missing = { code: 'invalid_type', expected: 'array', path: ['evalcases'], message: '' };
    const described = describe([missing as z.core.$ZodIssue], []);
    // `dataset:` names the results; a file name there was meant for `cases:`.
    if (typeof data.dataset === 'string' && datasetFormat(data.dataset) !== undefined) {
      for (const issue of described) {
        issue.hint = `to read cases from a file, write \`cases: ${data.dataset}\`; \`dataset:\` only names the results`;
      }
    }
    issues.push(...described);
  }
  issues.push(...evalFileUnknownKeyWarnings(data, filePath, source, false, upstream));
  issues.push(...duplicateIdIssues(data, filePath, source));

  const evalDir = path.dirname(absolutePath);
  const repoRoot = options.repoRoot
    ? path.resolve(cwd, options.repoRoot)
    : await findRepoRoot(evalDir);
  const execution = asRecord(data.execution);
  const fileEvaluators = evaluatorsOf(
    execution?.evaluators,
    ['execution', 'evaluators'],
    filePath,
    source,
    undefined,
    issues,
  );
  const defaults: FileDefaults = {
    file: filePath,
    filePath: absolutePath,
    upstream,
    dataset:
      typeof data.dataset === 'string' && data.dataset !== ''
        ? data.dataset
        : path.basename(absolutePath, path.extname(absolutePath)),
    source,
    target: stringOr(execution?.target) ?? stringOr(data.target),
    targets: stringListOr(execution?.targets),
    judgeTarget: stringOr(execution?.judge_target),
    targetPositions: targetPositionsOf(
      [
        { value: data.execution, at: ['execution'] },
        // The legacy top-level `target:`, used when `execution.target` is not set.
        { value: { target: data.target }, at: [] },
      ],
      source,
    ),
    tags: Array.isArray(data.tags)
      ? [
          ...new Set(
            data.tags.filter((tag): tag is string => typeof tag === 'string' && tag !== ''),
          ),
        ]
      : [],
    threshold: typeof execution?.threshold === 'number' ? execution.threshold : undefined,
    runSettings: runSettingsOf(execution),
    repeat: repeatOf(execution?.repeat),
    evaluators: fileEvaluators,
    evaluatorsInvalid:
      (execution?.evaluators !== undefined &&
        (!Array.isArray(execution.evaluators) || !execution.evaluators.every(isEvaluatorEntry))) ||
      fileMisspellsGraders(data, upstream),
    evaluatorPositions: evaluatorPositions(
      fileEvaluators,
      ['execution', 'evaluators'],
      source,
      true,
    ),
    describe,
    workspaceConfigs: new Map(),
    workspaceReading: undefined as unknown as WorkspaceReading,
    lookup: {
      searchDirs: await searchDirectories(evalDir, {
        repoRoot: repoRoot ?? path.parse(evalDir).root,
        cwd,
      }),
      evalDir,
      repoRoot,
      cwd,
      guidelinePatterns: options.guidelinePatterns ?? DEFAULT_GUIDELINE_PATTERNS,
      checked: new Map(),
      roots: await fileRootsFor(evalDir, options.allowedFileRoots, options.projectRoot),
      rootChecks: new Map(),
    },
  };

  defaults.workspaceReading = {
    lookup: defaults.lookup,
    issues,
    checks: new Map(),
    files: new Map(),
    sources: new Set(),
  };
  if (data.workspace !== undefined) {
    const layer = await readWorkspaceBlock(
      data.workspace,
      {
        file: filePath,
        source,
        path: ['workspace'],
        shown: 'workspace',
        baseDir: evalDir,
        describe: (zodIssues) => describe(zodIssues, ['workspace']),
      },
      defaults.workspaceReading,
    );
    if (layer !== undefined) {
      defaults.workspace = layer;
      defaults.workspaceConfig = resolveWorkspaceConfig(layer);
      defaults.workspaceConfigs.set(defaults.workspaceConfig.key, defaults.workspaceConfig);
      defaults.workspaceHookCommands = hooksWithCommands(layer);
    }
  }

  await checkJudgeFiles(fileEvaluators, ['execution', 'evaluators'], {
    file: filePath,
    source,
    evalDir,
    issues,
    checked: defaults.lookup.checked,
    roots: defaults.lookup.roots,
    rootChecks: defaults.lookup.rootChecks,
  });

  const rawCases = Array.isArray(data.evalcases) ? data.evalcases : [];
  const built = await Promise.all(
    rawCases.map((rawCase, index) => buildCase(rawCase, index, defaults, issues)),
  );
  const cases = built.filter((evalCase): evalCase is EvalCase => evalCase !== undefined);
  let casesFile: string | undefined;
  if (header.success && header.data.cases !== undefined) {
    const firstLines = new Map<string, string | number>();
    for (const [index, rawCase] of rawCases.entries()) {
      const id = asRecord(rawCase)?.id;
      const line = source.locate(['evalcases', index])?.line;
      const shown = displayPath(cwd, absolutePath);
      if (typeof id === 'string') firstLines.set(id, `${shown}${line ? `:${line}` : ''}`);
    }
    const dataset = { path: header.data.cases, ...source.locateKey([], 'cases') };
    casesFile = await loadDataset(
      dataset,
      defaults,
      { cases, issues, firstLines },
      options.onDatasetSize,
    );
  }
  const failed = !header.success || noCases || hasErrors(issues);
  if (failed && !options.partial) return { issues: sortIssues(issues) };
  const evalFile: EvalFile = {
    filePath: absolutePath,
    dataset: defaults.dataset,
    cases,
  };
  if (casesFile !== undefined) evalFile.casesFile = casesFile;
  if (data.targets !== undefined) evalFile.declaresTargets = true;
  if (defaults.workspaceReading.sources.size > 0) {
    evalFile.workspaceSources = [...defaults.workspaceReading.sources];
  }
  if (noCases) evalFile.noCases = true;
  if (header.success && header.data.description !== undefined) {
    evalFile.description = header.data.description;
  }
  return { value: evalFile, issues: sortIssues(issues) };
}

/**
 * Streams the cases of the dataset named by `cases:` into `into.cases`, one
 * record at a time, with the file's defaults. Problems are issues at the
 * dataset's `file:line`; ids must be unique across the file and its dataset.
 */
async function loadDataset(
  dataset: { path: string; line?: number; column?: number },
  defaults: FileDefaults,
  /** `firstLines`: case id → where it was first used (a line of the dataset when a number). */
  into: { cases: EvalCase[]; issues: Issue[]; firstLines: Map<string, string | number> },
  onSize?: (bytes: number) => void,
): Promise<string | undefined> {
  const { issues, firstLines } = into;
  const at = { file: defaults.file, line: dataset.line, column: dataset.column };
  const format = datasetFormat(dataset.path);
  const absolute = path.resolve(defaults.lookup.evalDir, dataset.path);
  if (format === undefined) {
    const suggestion = await closestDataset(absolute, dataset.path);
    issues.push({
      severity: 'error',
      ...at,
      message: `dataset "${dataset.path}" is neither .jsonl nor .csv`,
      hint: `${suggestion}name a JSONL file (\`cases: ./cases.jsonl\`, one case per line) or a CSV file with a header row (\`cases: ./cases.csv\`)`,
    });
    return undefined;
  }
  const file = path.join(path.dirname(defaults.file), dataset.path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isFile()) {
    const suggestion = await closestDataset(absolute, dataset.path);
    issues.push({
      severity: 'error',
      ...at,
      message: `dataset ${dataset.path} not found (looked for ${displayPath(defaults.lookup.cwd, absolute)})`,
      hint: `${suggestion}the \`cases:\` path is relative to the eval file`,
    });
    return undefined;
  }
  const refused = await checkFileRootOnce(
    absolute,
    defaults.lookup.roots,
    defaults.lookup.rootChecks,
  );
  if (refused !== undefined) {
    const problem = describeRefusal(
      `dataset ${dataset.path}`,
      dataset.path,
      refused,
      defaults.lookup.roots,
    );
    issues.push({ severity: 'error', ...at, ...problem });
    return undefined;
  }
  onSize?.(info.size);
  const shown = displayPath(defaults.lookup.cwd, absolute);
  // One set of per-record defaults, updated for each record: records are built one after
  // another and nothing keeps them, so a million records do not allocate a million copies.
  const position = { line: 0, column: 1 };
  const source: SourceLocator = {
    locate: () => ({ ...position }),
    locateKey: () => ({ ...position }),
  };
  const data: { evalcases: unknown[] } = { evalcases: [] };
  const warned = new Set<string>();
  const recordDefaults: FileDefaults = {
    ...defaults,
    file,
    source,
    datasetLine: 0,
    describe: (zodIssues, prefix) =>
      describeZodIssues(
        zodIssues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] })),
        {
          file,
          source,
          data,
          showValues: true,
          scope: (issuePath) => caseScope(data as Record<string, unknown>, issuePath),
          hint: evalFileHint,
        },
      ),
  };
  for await (const entries of readDataset(absolute, file, format)) {
    // Indexed: run for every record, a for-of loop allocates an iterator result per step.
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      if (entry.issue) {
        issues.push(entry.issue);
        continue;
      }
      const { line, record } = entry;
      const id = record.id;
      if (typeof id === 'string' && id !== '') {
        const first = firstLines.get(id);
        if (first !== undefined) {
          issues.push({
            severity: 'error',
            file,
            line,
            column: 1,
            caseId: id,
            message: `duplicate case id "${id}" (first used at ${typeof first === 'number' ? `${shown}:${first}` : first})`,
            hint: 'case ids must be unique within an eval file and its dataset; rename one of them',
          });
          continue;
        }
        firstLines.set(id, line);
      }
      position.line = line;
      data.evalcases[0] = record;
      recordDefaults.datasetLine = line;
      // A plain record has no key the schema does not know.
      const plain = isPlainValidCase(record);
      if (format === 'jsonl' && !plain) {
        // A misspelt key usually repeats on every line: warn about each one once.
        for (const warning of evalFileUnknownKeyWarnings(data, file, source, true)) {
          const key = warning.message;
          if (warned.has(key)) continue;
          warned.add(key);
          issues.push({ ...warning, message: `${warning.message} (first on this line)` });
        }
      }
      const built = buildCase(record, 0, recordDefaults, issues, plain);
      const evalCase = built instanceof Promise ? await built : built;
      if (evalCase) into.cases.push(evalCase);
    }
  }
  return absolute;
}

/**
 * `did you mean "d.jsonl"? ` when a JSONL or CSV file in the folder of `absolute`
 * is a likely typo of its name (`written`: the path as the eval file writes it); else ''.
 */
async function closestDataset(absolute: string, written: string): Promise<string> {
  const names = await readdir(path.dirname(absolute), { withFileTypes: true }).catch(() => []);
  const datasets = names
    .filter((entry) => entry.isFile() && datasetFormat(entry.name) !== undefined)
    .map((entry) => entry.name);
  const match = closestMatch(path.basename(absolute), datasets);
  if (match === undefined) return '';
  const slash = Math.max(written.lastIndexOf('/'), written.lastIndexOf('\\'));
  return `did you mean "${written.slice(0, slash + 1)}${match}"? `;
}

/**
 * The case `rawCase` gives, or undefined when it is invalid (its problems are in `issues`).
 * A promise only when something must be read first (file blocks, a conversation, a recorded
 * session, graders or a workspace of the case's own): most cases of a large dataset have none,
 * and an await per case costs more than building it. The steps run in the same order either way,
 * so issues come in the same order.
 */
function buildCase(
  rawCase: unknown,
  index: number,
  defaults: FileDefaults,
  issues: Issue[],
  plain = isPlainValidCase(rawCase),
): EvalCase | undefined | Promise<EvalCase | undefined> {
  let input = rawCase as EvalCaseParsed;
  if (!plain) {
    const parsed = evalCaseParseSchema.safeParse(rawCase);
    if (!parsed.success) {
      issues.push(...defaults.describe(parsed.error.issues, ['evalcases', index]));
      return checkFilesOfInvalidCase(rawCase, index, defaults, issues).then(() => undefined);
    }
    input = parsed.data;
  }
  // Messages without file blocks (most) are built without waiting for anything.
  const inputMessages =
    input.input_messages === undefined
      ? NO_EXPECTED_MESSAGES
      : buildMessagesWithoutFiles(input.input_messages);
  const expectedMessages =
    input.expected_messages === undefined
      ? NO_EXPECTED_MESSAGES
      : buildMessagesWithoutFiles(input.expected_messages);
  // A plain case has no key the schema does not know, so none misspelt.
  const datasetLine = defaults.datasetLine !== undefined;
  const misspelt =
    !plain && caseMisspellsGraders(rawCase, datasetLine, defaults.upstream && !datasetLine);
  if (
    inputMessages !== undefined &&
    expectedMessages !== undefined &&
    input.turns === undefined &&
    input.simulated_user === undefined &&
    input.trace === undefined
  ) {
    const evalCase = assembleCase(input, index, defaults, issues, inputMessages, expectedMessages);
    return misspelt ? markEvaluatorsMisspelt(evalCase) : evalCase;
  }
  return readCaseParts(input, index, defaults, issues, inputMessages, expectedMessages)
    .then((parts) =>
      assembleCase(
        input,
        index,
        defaults,
        issues,
        parts.inputMessages,
        parts.expectedMessages,
        parts.conversation,
        parts.recordedTrace,
      ),
    )
    .then((evalCase) => (misspelt ? markEvaluatorsMisspelt(evalCase) : evalCase));
}

/** `evalCase` marked `evaluatorsMisspelt` (see `EvalCase`); a promise of it for a promise. */
function markEvaluatorsMisspelt(
  evalCase: EvalCase | Promise<EvalCase>,
): EvalCase | Promise<EvalCase> {
  if (evalCase instanceof Promise) return evalCase.then(markEvaluatorsMisspelt);
  evalCase.evaluatorsMisspelt = true;
  return evalCase;
}

/** What of a case is read from files: its messages, conversation and recorded session. */
interface CaseParts {
  inputMessages: EvalMessage[];
  expectedMessages: EvalMessage[];
  conversation?: EvalCase['conversation'];
  recordedTrace?: EvalCase['recordedTrace'];
}

/** Reads a case's file blocks (message lists `buildMessagesWithoutFiles` left undefined), conversation and recorded session. */
async function readCaseParts(
  input: EvalCaseParsed,
  index: number,
  defaults: FileDefaults,
  issues: Issue[],
  inputMessages: EvalMessage[] | undefined,
  expectedMessages: EvalMessage[] | undefined,
): Promise<CaseParts> {
  const casePath = ['evalcases', index];
  const { file, source } = defaults;
  const listContext = (key: string) => ({
    file,
    source,
    path: [...casePath, key],
    caseId: input.id,
    lookup: defaults.lookup,
    issues,
  });
  const parts: CaseParts = {
    inputMessages:
      inputMessages ?? (await buildMessages(input.input_messages!, listContext('input_messages'))),
    expectedMessages:
      expectedMessages ??
      (await buildMessages(input.expected_messages!, listContext('expected_messages'))),
  };
  const caseContext = { file, source, casePath, caseId: input.id, lookup: defaults.lookup, issues };
  if (input.turns !== undefined || input.simulated_user !== undefined) {
    parts.conversation = await buildConversation(input, {
      ...caseContext,
      readEvaluators: (list, listPath) =>
        ownEvaluatorList(list, listPath, input.id, defaults, issues),
    });
  }
  if (input.trace !== undefined) {
    parts.recordedTrace = await recordedTraceOf(input.trace, caseContext);
  }
  return parts;
}

/**
 * The case from its parsed input and the parts read for it; a promise only when it has graders
 * or a workspace of its own to read.
 */
function assembleCase(
  input: EvalCaseParsed,
  index: number,
  defaults: FileDefaults,
  issues: Issue[],
  inputMessages: EvalMessage[],
  expectedMessages: EvalMessage[],
  conversation?: CaseParts['conversation'],
  recordedTrace?: CaseParts['recordedTrace'],
): EvalCase | Promise<EvalCase> {
  const { file, source } = defaults;
  const evalCase: EvalCase = {
    id: input.id,
    dataset: defaults.dataset,
    filePath: defaults.filePath,
    inputMessages,
    expectedMessages,
    // Set below: every case gets its own list, its file's or a default one.
    evaluators: NO_EVALUATORS,
  };
  if (defaults.upstream && defaults.datasetLine === undefined) evalCase.testsFormat = true;
  // A dataset case's line is in the dataset, not the eval file `line` refers to.
  const position =
    defaults.datasetLine === undefined ? source.locate(['evalcases', index]) : undefined;
  if (position !== undefined) {
    evalCase.line = position.line;
    evalCase.column = position.column;
  }
  if (recordedTrace !== undefined) evalCase.recordedTrace = recordedTrace;
  if (conversation !== undefined && recordedTrace !== undefined) {
    issues.push({
      severity: 'error',
      file,
      ...source.locateKey(['evalcases', index], 'trace'),
      caseId: input.id,
      message: 'a case with `trace:` (a recorded session) cannot also be a conversation',
      hint: 'a recorded session answers a case once: remove `turns:` / `simulated_user:`, or `trace:`',
    });
  }
  if (conversation !== undefined) {
    evalCase.conversation = conversation;
  } else if (input.input_messages === undefined && input.trace === undefined) {
    issues.push({
      severity: 'error',
      file,
      ...(position ?? { line: defaults.datasetLine, column: 1 }),
      caseId: input.id,
      ...missingQuestion(defaults),
    });
  }
  if (input.vars !== undefined) evalCase.vars = input.vars;
  // The file's tags are one list, shared by the cases without tags of their own.
  const tags =
    input.tags === undefined ? defaults.tags : [...new Set([...defaults.tags, ...input.tags])];
  if (tags.length > 0) evalCase.tags = tags;
  const expectedOutcome = input.expected_outcome ?? input.outcome;
  if (expectedOutcome !== undefined) evalCase.expectedOutcome = expectedOutcome;
  if (
    input.expected_outcome !== undefined &&
    input.outcome !== undefined &&
    input.expected_outcome !== input.outcome
  ) {
    issues.push({
      severity: 'warning',
      file,
      ...source.locateKey(['evalcases', index], 'outcome'),
      caseId: input.id,
      message: 'both "expected_outcome" and its alias "outcome" are set; "outcome" is ignored',
      hint: 'keep only `expected_outcome`',
    });
  }
  if (input.conversation_id !== undefined) evalCase.conversationId = input.conversation_id;
  // A case naming its own target(s) replaces the file's choice entirely.
  const ownTargets =
    input.execution?.target !== undefined || input.execution?.targets !== undefined;
  const target = ownTargets ? input.execution?.target : defaults.target;
  if (target !== undefined) evalCase.target = target;
  const targets = ownTargets ? input.execution?.targets?.slice() : defaults.targets;
  if (targets !== undefined) evalCase.targets = targets;
  const judgeTarget = input.execution?.judge_target ?? defaults.judgeTarget;
  if (judgeTarget !== undefined) evalCase.judgeTarget = judgeTarget;
  // A dataset record's own names are in the dataset, not in the eval file issues name.
  const ownPositions =
    input.execution === undefined || defaults.datasetLine !== undefined
      ? undefined
      : targetPositionsOf(
          [{ value: input.execution, at: ['evalcases', index, 'execution'] }],
          source,
        );
  const targetPositions =
    ownPositions === undefined
      ? defaults.targetPositions
      : { ...defaults.targetPositions, ...ownPositions };
  if (targetPositions !== undefined) evalCase.targetPositions = targetPositions;
  const simulatorAt =
    conversation?.simulatedUser === undefined || defaults.datasetLine !== undefined
      ? undefined
      : source.locate(['evalcases', index, 'simulated_user', 'target']);
  if (simulatorAt !== undefined) {
    evalCase.targetPositions = { ...evalCase.targetPositions, simulated_user: simulatorAt };
  }
  if (
    input.execution?.evaluators !== undefined ||
    input.evaluators !== undefined ||
    input.workspace !== undefined
  ) {
    return readOwnGradersAndWorkspace(evalCase, input, index, defaults, issues);
  }
  setSharedEvaluators(evalCase, defaults);
  if (defaults.workspaceConfig !== undefined) evalCase.workspace = defaults.workspaceConfig;
  return finishCase(evalCase, input, defaults);
}

/** A case's own graders and workspace block, read (their files checked), then the rest of the case. */
async function readOwnGradersAndWorkspace(
  evalCase: EvalCase,
  input: EvalCaseParsed,
  index: number,
  defaults: FileDefaults,
  issues: Issue[],
): Promise<EvalCase> {
  const casePath = ['evalcases', index];
  const ownEvaluators =
    input.execution?.evaluators !== undefined
      ? { list: input.execution.evaluators, path: [...casePath, 'execution', 'evaluators'] }
      : input.evaluators !== undefined
        ? { list: input.evaluators, path: [...casePath, 'evaluators'] }
        : undefined;
  if (ownEvaluators !== undefined) {
    evalCase.evaluators = await ownEvaluatorList(
      ownEvaluators.list,
      ownEvaluators.path,
      input.id,
      defaults,
      issues,
    );
    evalCase.evaluatorPositions = evaluatorPositions(
      evalCase.evaluators,
      ownEvaluators.path,
      defaults.source,
    );
  } else {
    setSharedEvaluators(evalCase, defaults);
  }
  if (input.workspace !== undefined) {
    const workspace = await caseWorkspace(input.workspace, casePath, input.id, defaults);
    if (workspace !== undefined) evalCase.workspace = workspace;
  } else if (defaults.workspaceConfig !== undefined) {
    // One object for every case without a block of its own: pools and hooks go by it.
    evalCase.workspace = defaults.workspaceConfig;
  }
  return finishCase(evalCase, input, defaults);
}

/** The graders of a case without its own list: its file's (one list for every such case). */
function setSharedEvaluators(evalCase: EvalCase, defaults: FileDefaults): void {
  if (evalCase.conversation?.simulatedUser !== undefined && defaults.evaluators.length === 0) {
    // A simulated user's conversation with no grader anywhere is graded by whether it got there.
    evalCase.evaluators = [{ name: 'goal_reached', type: 'goal_reached' }];
  } else {
    // Shared, not copied: a dataset may hold a million cases with the file's evaluators.
    evalCase.evaluators = defaults.evaluators;
    evalCase.evaluatorPositions = defaults.evaluatorPositions;
    if (defaults.evaluatorsInvalid) evalCase.sharedEvaluatorsInvalid = true;
  }
}

/** Threshold, repeats, budget and rubrics: what follows a case's graders. */
function finishCase(evalCase: EvalCase, input: EvalCaseParsed, defaults: FileDefaults): EvalCase {
  const threshold = input.execution?.threshold ?? defaults.threshold;
  if (threshold !== undefined) evalCase.threshold = threshold;
  if (defaults.repeat !== undefined) evalCase.repeat = defaults.repeat;
  const settings =
    input.execution === undefined
      ? defaults.runSettings
      : mergeRunSettings(defaults.runSettings, runSettingsOf(asRecord(input.execution)));
  if (settings.repeatPass !== undefined) evalCase.repeatPass = settings.repeatPass;
  if (settings.budget !== undefined) evalCase.budget = settings.budget;
  if (input.rubrics !== undefined) {
    const items = input.rubrics.map(toRubricItem);
    evalCase.rubrics = items.map((item) => item.description);
    evalCase.rubricItems = items;
    // As in AgentV 1.x, case rubrics are graded by a rubric judge added to the case's
    // evaluators, unless a `rubric` evaluator without items of its own already grades them.
    if (
      !evalCase.evaluators.some(
        (config) => config.type === 'rubric' && config.rubrics === undefined,
      )
    ) {
      evalCase.evaluators = [
        ...evalCase.evaluators,
        { name: uniqueRubricName(evalCase.evaluators), type: 'rubric' },
      ];
    }
  }
  return evalCase;
}

/**
 * A case's `workspace:` merged over the file's and resolved; cases whose
 * results are equal share one object. Undefined when the block has errors.
 */
async function caseWorkspace(
  value: unknown,
  casePath: readonly PropertyKey[],
  caseId: string,
  defaults: FileDefaults,
): Promise<WorkspaceConfig | undefined> {
  const at = [...casePath, 'workspace'];
  const layer = await readWorkspaceBlock(
    value,
    {
      file: defaults.file,
      source: defaults.source,
      path: at,
      shown: 'workspace',
      caseId,
      // A record's paths resolve from the eval file's folder, as its attachments do.
      baseDir: defaults.lookup.evalDir,
      ...(defaults.datasetLine === undefined ? {} : { datasetRecord: true }),
      inheritedCommands: defaults.workspaceHookCommands,
      describe: (zodIssues) => defaults.describe(zodIssues, at),
    },
    defaults.workspaceReading,
  );
  if (layer === undefined) return undefined;
  const config = resolveWorkspaceConfig(mergeWorkspaceLayers(defaults.workspace, layer));
  const known = defaults.workspaceConfigs.get(config.key);
  if (known !== undefined) return known;
  defaults.workspaceConfigs.set(config.key, config);
  return config;
}

function hooksWithCommands(layer: WorkspaceLayer): ReadonlySet<string> {
  const names = new Set<string>();
  const hooks = layer.hooks;
  if (hooks?.beforeAll?.command !== undefined) names.add('before_all');
  if (hooks?.beforeEach?.command !== undefined) names.add('before_each');
  if (hooks?.afterEach?.command !== undefined) names.add('after_each');
  if (hooks?.afterAll?.command !== undefined) names.add('after_all');
  return names;
}

/** Resolves the file blocks of a case that failed validation, so missing files are reported too. */
async function checkFilesOfInvalidCase(
  rawCase: unknown,
  index: number,
  defaults: FileDefaults,
  issues: Issue[],
): Promise<void> {
  const record = asRecord(rawCase);
  if (record === undefined) return;
  const caseId = stringOr(record.id);
  for (const key of ['input_messages', 'expected_messages']) {
    const messages = record[key];
    if (!Array.isArray(messages)) continue;
    const context = {
      file: defaults.file,
      source: defaults.source,
      path: ['evalcases', index, key],
      lookup: defaults.lookup,
      issues,
      ...(caseId === undefined ? {} : { caseId }),
    };
    await Promise.all(
      messages.map(async (message, messageIndex) => {
        const valid = messageSchema.safeParse(message);
        if (valid.success) await buildMessage(valid.data, messageIndex, context);
      }),
    );
  }
}

function uniqueRubricName(evaluators: readonly EvaluatorConfig[]): string {
  const names = new Set(evaluators.map((config) => config.name));
  let name = 'rubrics';
  for (let suffix = 2; names.has(name); suffix++) name = `rubrics-${suffix}`;
  return name;
}

function toRubricItem(rubric: RubricInput, index: number): RubricItem {
  const fallbackId = `rubric-${index + 1}`;
  if (typeof rubric === 'string') {
    return { id: fallbackId, description: rubric, weight: 1, required: true };
  }
  return {
    id: rubric.id ?? fallbackId,
    description: (rubric.description ?? rubric.expected_outcome)!,
    weight: rubric.weight ?? 1,
    required: rubric.required ?? true,
  };
}

/** A case's (or a turn's) own evaluator list at `listPath`, named and checked. */
async function ownEvaluatorList(
  list: unknown,
  listPath: readonly PropertyKey[],
  caseId: string,
  defaults: FileDefaults,
  issues: Issue[],
): Promise<EvaluatorConfig[]> {
  const { file, source } = defaults;
  const evaluators = evaluatorsOf(list, listPath, file, source, caseId, issues);
  if (defaults.datasetLine !== undefined) {
    issues.push(
      ...datasetCommandGraderIssues(evaluators, { file, line: defaults.datasetLine, caseId }),
    );
  }
  await checkJudgeFiles(evaluators, listPath, {
    file,
    source,
    evalDir: defaults.lookup.evalDir,
    caseId,
    issues,
    checked: defaults.lookup.checked,
    roots: defaults.lookup.roots,
    rootChecks: defaults.lookup.rootChecks,
  });
  return evaluators;
}

/** Names an evaluator list's entries and reports explicit names used twice; invalid lists give []. */
function evaluatorsOf(
  value: unknown,
  listPath: readonly PropertyKey[],
  file: string,
  source: SourceLocator,
  caseId: string | undefined,
  issues: Issue[],
): EvaluatorConfig[] {
  if (!Array.isArray(value) || !value.every(isEvaluatorEntry)) return [];
  const { evaluators, duplicates } = normalizeEvaluators(value);
  for (const duplicate of duplicates) {
    const lines = duplicate.indexes.map((index) => source.locate([...listPath, index])?.line);
    const issue: Issue = {
      severity: 'error',
      file,
      ...source.locate([...listPath, duplicate.indexes[1]!]),
      message: `${caseId === undefined ? 'execution.evaluators: ' : ''}evaluator name "${duplicate.name}" is used more than once (lines ${lines.join(', ')})`,
      hint: 'give each evaluator in a list a unique `name`',
    };
    if (caseId !== undefined) issue.caseId = caseId;
    issues.push(issue);
  }
  return evaluators;
}

function isEvaluatorEntry(entry: unknown): entry is EvaluatorEntryInput {
  const record = asRecord(entry);
  return (
    record !== undefined &&
    typeof record.type === 'string' &&
    record.type !== '' &&
    (record.name === undefined || (typeof record.name === 'string' && record.name !== '')) &&
    (record.weight === undefined || (typeof record.weight === 'number' && record.weight >= 0))
  );
}

function duplicateIdIssues(
  data: Record<string, unknown>,
  file: string,
  source: SourceLocator,
): Issue[] {
  if (!Array.isArray(data.evalcases)) return [];
  const firstIndex = new Map<string, number>();
  const issues: Issue[] = [];
  data.evalcases.forEach((rawCase, index) => {
    const id = asRecord(rawCase)?.id;
    if (typeof id !== 'string' || id === '') return;
    const first = firstIndex.get(id);
    if (first === undefined) {
      firstIndex.set(id, index);
      return;
    }
    const firstLine = source.locate(['evalcases', first])?.line;
    const position = source.locate(['evalcases', index, 'id']);
    issues.push({
      severity: 'error',
      file,
      ...position,
      caseId: id,
      message: `duplicate case id "${id}" on lines ${firstLine} and ${source.locate(['evalcases', index])?.line}`,
      hint: 'case ids must be unique within a file; rename one of them',
    });
  });
  return issues;
}

/** A scope of a `tests:` file's (translated) data, its keys shown as that format spells them. */
function spelledAsTests(scope: IssueScope): IssueScope {
  const shownPath = scope.shownPath.map((key) =>
    typeof key === 'string' ? (UPSTREAM_NAMES[key] ?? key) : key,
  );
  return { ...scope, shownPath };
}

/** Whether a schema issue is about the file's list of cases as a whole (an empty one). */
function isCaseListIssue(issue: z.core.$ZodIssue): boolean {
  return issue.path.length === 1 && issue.path[0] === 'evalcases';
}

/** `evalFileHint` in the words of a `tests:` file. */
function testsFileHint(issuePath: readonly PropertyKey[], kind: ProblemKind): string | undefined {
  if (issuePath.length === 1 && issuePath[0] === 'evalcases') {
    return 'add a `tests:` list with at least one test (`- id: ...`), or name a case file or folder (`tests: ./cases.jsonl`)';
  }
  return evalFileHint(issuePath, kind);
}

/** The error for a case that asks nothing, in the words of where it is written. */
function missingQuestion(defaults: FileDefaults): Pick<Issue, 'message' | 'hint'> {
  if (defaults.datasetLine !== undefined) {
    return {
      message: 'has no question',
      hint: 'give the record a `question` (or `input`) with the text to ask, or `input_messages`',
    };
  }
  if (defaults.upstream) {
    return {
      message: 'missing required key "input"',
      hint: 'add `input:` with what to ask, e.g. `input: "What are your opening hours?"`',
    };
  }
  return {
    message: 'missing required key "input_messages"',
    hint: 'add `input_messages:` with at least one message, e.g. `- {role: user, content: "..."}`, or a conversation (`turns:` / `simulated_user:`)',
  };
}

function caseScope(data: Record<string, unknown>, issuePath: readonly PropertyKey[]): IssueScope {
  if (issuePath[0] === 'evalcases' && typeof issuePath[1] === 'number' && issuePath.length > 2) {
    const id = valueAt(data, ['evalcases', issuePath[1], 'id']);
    if (typeof id === 'string' && id !== '') return { caseId: id, shownPath: issuePath.slice(2) };
  }
  return { shownPath: issuePath };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Where target names are written in `execution` mappings (`target.<name>` for
 * `target` and each of `targets`, `judge_target`); the first place wins.
 * Undefined when none is written.
 */
function targetPositionsOf(
  blocks: readonly { value: unknown; at: readonly PropertyKey[] }[],
  source: SourceLocator,
): Record<string, SourcePosition> | undefined {
  const positions: Record<string, SourcePosition> = {};
  const add = (key: string, path: readonly PropertyKey[]) => {
    if (positions[key] !== undefined) return;
    const position = source.locate(path);
    if (position !== undefined) positions[key] = position;
  };
  for (const { value, at } of blocks) {
    const record = asRecord(value);
    if (record === undefined) continue;
    if (stringOr(record.target) !== undefined) add(`target.${record.target}`, [...at, 'target']);
    if (Array.isArray(record.targets)) {
      record.targets.forEach((name, index) => {
        if (stringOr(name) !== undefined) add(`target.${name}`, [...at, 'targets', index]);
      });
    }
    if (stringOr(record.judge_target) !== undefined) add('judge_target', [...at, 'judge_target']);
  }
  return Object.keys(positions).length > 0 ? positions : undefined;
}

function stringListOr(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const names = value.filter((item): item is string => typeof item === 'string' && item !== '');
  return names.length > 0 ? names : undefined;
}

/** `execution.target` and `execution.targets` side by side (in the file or a case): ambiguous. */
function bothTargetKeysIssues(
  data: Record<string, unknown>,
  file: string,
  source: SourceLocator,
): Issue[] {
  const issues: Issue[] = [];
  const check = (execution: unknown, at: PropertyKey[], caseId?: string) => {
    const record = asRecord(execution);
    if (record?.target === undefined || record.targets === undefined) return;
    issues.push({
      severity: 'error',
      file,
      ...source.locateKey(at, 'targets'),
      ...(caseId === undefined ? {} : { caseId }),
      message: 'sets both execution.target and execution.targets',
      hint: 'keep one: `targets: [a, b]` runs every case against each target, `target: a` against one',
    });
  };
  check(data.execution, ['execution']);
  if (Array.isArray(data.evalcases)) {
    data.evalcases.forEach((raw, index) => {
      const record = asRecord(raw);
      check(record?.execution, ['evalcases', index, 'execution'], stringOr(record?.id));
    });
  }
  return issues;
}

/** Shared by the cases without expected messages (one list for a million cases); frozen. */
const NO_EXPECTED_MESSAGES = Object.freeze([]) as unknown as EvalMessage[];

/** Stands for a case's graders until they are set (an empty list per case would be garbage). */
const NO_EVALUATORS = Object.freeze([]) as unknown as EvaluatorConfig[];

/** The file's `execution.repeat` when it is valid (the schema reports it otherwise). */
function repeatOf(value: unknown): EvalCase['repeat'] {
  if (!isRecord(value)) return undefined;
  const { count, reducer } = value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return undefined;
  if (reducer !== 'mean' && reducer !== 'pass_at_k') return undefined;
  return { count, reducer };
}
