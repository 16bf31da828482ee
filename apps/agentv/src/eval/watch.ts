import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { type LoadedProject, loadProject } from '@agentv/core';
import { CLI_OPTION_NAMES, displayPath, judgeFilesOf, UsageError } from '@agentv/core/internal';
import { terminalText } from '@agentv/results';
import { ExitCode } from '../exit-code.js';
import { printError } from '../print-error.js';
import { createAppProviderRegistry } from '../registry.js';
import { onStopSignals } from '../stop-signals.js';
import { loadEvalFiles } from './load-eval-files.js';
import { parseReportFlags } from './report-flags.js';
import { resolveEvalPaths } from './resolve-eval-paths.js';

/** Editors write a file several times when saving: changes this close together are one change. */
const DEBOUNCE_MS = 200;

/** What `agentv eval --watch` needs of the eval command. */
export interface WatchEvalOptions {
  args: {
    _: string[];
    out?: string;
    'output-format'?: string;
    'dump-traces'?: boolean;
    junit?: string;
    html?: string;
    targets?: string;
    resume?: string;
    shard?: string;
    list?: boolean;
  };
  rawArgs: readonly string[];
  cwd: string;
  /** Runs one pass of `agentv eval` over these eval files (absolute) and returns its exit code. */
  runPass(evalFiles: readonly string[]): Promise<number>;
  stdout?: NodeJS.WriteStream;
}

/**
 * `agentv eval --watch`: runs every eval file once, then re-runs the eval
 * files a change affects (an eval file itself, its dataset, the files its
 * messages attach, its graders' scripts and prompt files; the targets or
 * config file: all of them) until Ctrl-C. Passes never overlap: changes during
 * a pass make exactly one pass after it. A pass that fails on invalid input
 * prints its errors and the watch goes on. Resolves to the exit code of the
 * last pass (a pass Ctrl-C interrupted: 130).
 */
export async function watchEval(options: WatchEvalOptions): Promise<number> {
  const { args, cwd } = options;
  for (const [flag, given] of [
    ['--resume', args.resume !== undefined],
    ['--shard', args.shard !== undefined],
    ['--list', args.list === true],
  ] as const) {
    if (given) {
      throw new UsageError(`--watch cannot be combined with ${flag}`, {
        hint: `run agentv eval ${flag} without --watch`,
      });
    }
  }
  const flags = await parseReportFlags(args, options.rawArgs, cwd);
  const evalFiles = await resolveEvalPaths(flags.evalInputs, cwd);
  return new EvalWatcher(options, evalFiles).start();
}

/** The files a watch follows: eval file → the files it reads; files every eval file reads. */
interface Dependencies {
  byEvalFile: Map<string, Set<string>>;
  shared: Set<string>;
}

class EvalWatcher {
  private readonly out: NodeJS.WriteStream;
  private readonly pending = new Set<string>();
  private watchers = new Map<string, FSWatcher>();
  private dependencies: Dependencies = { byEvalFile: new Map(), shared: new Set() };
  private running = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private lastCode: number = ExitCode.Passed;
  private finish: ((code: number) => void) | undefined;

  constructor(
    private readonly options: WatchEvalOptions,
    private readonly evalFiles: readonly string[],
  ) {
    this.out = options.stdout ?? process.stdout;
  }

  async start(): Promise<number> {
    const done = new Promise<number>((resolve) => {
      this.finish = resolve;
    });
    const stopListening = onStopSignals(this.onSignal);
    await this.runPass([...this.evalFiles], []);
    const code = await done;
    stopListening();
    return code;
  }

  /** Ctrl-C: when a pass runs, the pass stops its cases (its own handler) and the watch ends after it. */
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.stopping = true;
    if (!this.running) {
      this.stop(this.lastCode);
      return;
    }
    // A pass still loading its files has no handler yet: hand the signal on once it has one.
    if (process.listenerCount(signal) === 1) this.forwardWhenHandled(signal);
  };

  private forwardWhenHandled(signal: NodeJS.Signals): void {
    const poll = setInterval(() => {
      if (!this.running) {
        clearInterval(poll);
      } else if (process.listenerCount(signal) > 1) {
        clearInterval(poll);
        process.emit(signal as 'SIGINT', signal);
      }
    }, 20);
  }

  private stop(code: number): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.finish?.(code);
  }

  private async runPass(files: string[], changed: readonly string[]): Promise<void> {
    this.running = true;
    const shown = (list: readonly string[]) =>
      list.map((file) => terminalText(displayPath(this.options.cwd, file))).join(', ');
    if (changed.length > 0) {
      if (this.out.isTTY) this.out.write('\x1b[2J\x1b[3J\x1b[H');
      else this.out.write(`\n${'-'.repeat(72)}\n`);
      this.out.write(`agentv: ${shown(changed)} changed; running ${shown(files)}\n`);
    }
    try {
      this.lastCode = await this.options.runPass(files);
    } catch (error) {
      // Invalid input (often a file being edited): report it like agentv eval does, keep watching.
      this.lastCode = printError(error, 'eval');
    }
    if (this.stopping || this.lastCode === ExitCode.Interrupted) {
      this.running = false;
      this.stop(this.lastCode);
      return;
    }
    this.dependencies = await this.findDependencies();
    this.follow();
    this.running = false;
    if (this.pending.size > 0) {
      this.trigger();
      return;
    }
    const count = new Set([
      ...this.dependencies.shared,
      ...[...this.dependencies.byEvalFile.values()].flatMap((set) => [...set]),
    ]).size;
    this.out.write(
      `agentv: watching ${count} ${count === 1 ? 'file' : 'files'} for changes (Ctrl-C to stop)\n`,
    );
  }

  /** Runs the eval files the pending changes affect, unless a pass is running (it runs them after). */
  private trigger(): void {
    if (this.running || this.stopping || this.pending.size === 0) return;
    const changed = [...this.pending].sort();
    this.pending.clear();
    const { byEvalFile, shared } = this.dependencies;
    const all = changed.some((file) => shared.has(file));
    const affected = this.evalFiles.filter(
      (evalFile) => all || changed.some((file) => byEvalFile.get(evalFile)?.has(file)),
    );
    if (affected.length === 0) return;
    void this.runPass(affected, changed);
  }

  private onChange(file: string): void {
    const { byEvalFile, shared } = this.dependencies;
    const known =
      shared.has(file) || [...byEvalFile.values()].some((dependencies) => dependencies.has(file));
    if (!known) return;
    this.pending.add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.trigger(), DEBOUNCE_MS);
  }

  /** Watches the directory of every dependency (which also sees editors that save by renaming). */
  private follow(): void {
    const { byEvalFile, shared } = this.dependencies;
    const dirs = new Set<string>();
    for (const file of shared) dirs.add(path.dirname(file));
    for (const files of byEvalFile.values()) for (const file of files) dirs.add(path.dirname(file));
    for (const [dir, watcher] of this.watchers) {
      if (dirs.has(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    for (const dir of dirs) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, (_event, name) => {
          if (name) this.onChange(path.join(dir, name.toString()));
        });
        watcher.on('error', () => {
          watcher.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, watcher);
      } catch {
        // A directory that does not exist (yet) has nothing to watch.
      }
    }
  }

  /** Loads the project again (files may now attach other files) to learn what each eval file reads. */
  private async findDependencies(): Promise<Dependencies> {
    const byEvalFile = new Map<string, Set<string>>(
      this.evalFiles.map((file) => [file, new Set([file])]),
    );
    const shared = new Set<string>();
    let project: LoadedProject;
    try {
      project = await loadProject({
        cwd: this.options.cwd,
        providerRegistry: createAppProviderRegistry(),
        evalFiles: this.evalFiles,
        ...(this.options.args.targets === undefined
          ? {}
          : { targetsFile: this.options.args.targets }),
        mode: 'run',
        loadEvalFiles: (requests) => loadEvalFiles(requests),
        optionNames: CLI_OPTION_NAMES,
      });
    } catch {
      return { byEvalFile, shared };
    }
    for (const file of project.evalFiles) {
      if (file.targetsFile) shared.add(file.targetsFile);
      if (file.configFile) shared.add(file.configFile);
      const files = byEvalFile.get(file.path) ?? new Set([file.path]);
      byEvalFile.set(file.path, files);
      if (file.value?.casesFile) files.add(file.value.casesFile);
      const evalDir = path.dirname(file.path);
      for (const evalCase of file.value?.cases ?? []) {
        for (const message of [...evalCase.inputMessages, ...evalCase.expectedMessages]) {
          for (const block of message.content) if (block.type === 'file') files.add(block.path);
        }
        for (const judgeFile of judgeFilesOf(evalCase.evaluators, evalDir)) files.add(judgeFile);
      }
    }
    return { byEvalFile, shared };
  }
}
