import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The root entry is what a library user needs to run evaluations and write graders; it may not
// grow silently. A name added here is a decision: say in the changeset why users need it.
const ROOT = {
  values: [
    'AgentvError',
    'EvaluatorError',
    'computeRunStatistics',
    'createEvaluatorRegistry',
    'createProviderRegistry',
    'defaultEvaluators',
    'evaluate',
    'formatIssue',
    'isAgentvError',
    'isEvaluatorError',
    'isInvalidInputError',
    'loadEvalFile',
    'loadProject',
    'planRun',
    'runEvaluation',
  ],
  types: [
    'AttemptRecord',
    'EvalCase',
    'EvalFile',
    'EvaluateOptions',
    'EvaluateOutcome',
    'EvaluateProgressEvent',
    'EvaluationContext',
    'EvaluationResult',
    'EvaluationScore',
    'Evaluator',
    'EvaluatorConfig',
    'EvaluatorRegistry',
    'EvaluatorResult',
    'Issue',
    'Judge',
    'LoadEvalFileOptions',
    'LoadProjectOptions',
    'LoadedProject',
    'PlanRunOptions',
    'PlannedCase',
    'ProviderRegistry',
    'RetryPolicy',
    'RunEvaluationOptions',
    'RunOutcome',
    'RunPlan',
    'RunStatistics',
    'TargetDefinition',
    'TargetStatistics',
    'Verdict',
  ],
};

const ENTRIES = {
  '@agentv/core': 'index.ts',
  '@agentv/core/provider-utils': 'provider-utils.ts',
  '@agentv/core/internal': 'internal.ts',
  '@agentv/core/test': 'test/index.ts',
} as const;

type Entry = keyof typeof ENTRIES;

/** Every name each entry exports, types included, as the compiler sees them. */
function exportedNames(): Record<Entry, { values: string[]; types: string[] }> {
  const file = (entry: Entry) => fileURLToPath(new URL(ENTRIES[entry], import.meta.url));
  const entries = Object.keys(ENTRIES) as Entry[];
  const program = ts.createProgram(entries.map(file), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const names = {} as Record<Entry, { values: string[]; types: string[] }>;
  for (const entry of entries) {
    const source = program.getSourceFile(file(entry))!;
    const symbols = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of symbols) {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const typeOnly = !(target.flags & ts.SymbolFlags.Value);
      (typeOnly ? types : values).push(symbol.name);
    }
    names[entry] = { values: values.sort(), types: types.sort() };
  }
  return names;
}

const sorted = (names: readonly string[]) => [...names].sort();

describe("@agentv/core's entries", () => {
  const names = exportedNames();

  it('the root exports exactly what a library user needs, at most 45 names', () => {
    const root = names['@agentv/core'];
    expect(root.values).toEqual(sorted(ROOT.values));
    expect(root.types).toEqual(sorted(ROOT.types));
    expect(root.values.length + root.types.length).toBeLessThanOrEqual(45);
  });

  it("the root's runtime exports are the functions and classes listed", async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(sorted(ROOT.values));
  });

  it('every name has one home: no two entries export the same name', () => {
    const homes = new Map<string, Entry[]>();
    for (const [entry, { values, types }] of Object.entries(names) as [
      Entry,
      { values: string[]; types: string[] },
    ][]) {
      for (const name of [...values, ...types])
        homes.set(name, [...(homes.get(name) ?? []), entry]);
    }
    const twice = [...homes].filter(([, entries]) => entries.length > 1);
    expect(twice).toEqual([]);
  });
});
