import type { ScriptTurn } from '../../../../packages/provider-coding-agents/src/test-support/responses-server.js';

/**
 * What a competent model does for each task of examples/coding-agents through Codex's tools,
 * found by words of the prompt: a shell command and patches. `firstShell` replaces the first
 * command of the slugify task (which only looks around).
 */
export function codexSolution(firstShell = 'node --test test/slugify.test.js || true') {
  const solutions: [string, ScriptTurn[]][] = [
    [
      'src/slugify.js',
      [
        { shell: firstShell },
        { shell: `sed -i "s/'_')/'-')/" src/slugify.js` },
        { answer: 'Fixed slugify: words are now joined with dashes.' },
      ],
    ],
    [
      'wordCount',
      [
        {
          patch: [
            '*** Begin Patch',
            '*** Update File: src/word-count.js',
            '@@',
            '-export function wordCount(_text) {',
            "-  throw new Error('not implemented');",
            '+export function wordCount(text) {',
            '+  return text.split(/\\s+/).filter((word) => word !== "").length;',
            '*** End Patch',
          ].join('\n'),
        },
        { answer: 'Implemented wordCount.' },
      ],
    ],
    [
      'capitalize',
      [
        {
          patch: [
            '*** Begin Patch',
            '*** Add File: src/capitalize.js',
            '+export function capitalize(text) {',
            '+  return text.charAt(0).toUpperCase() + text.slice(1);',
            '+}',
            '*** End Patch',
          ].join('\n'),
        },
        { answer: 'Created src/capitalize.js.' },
      ],
    ],
  ];
  return (prompt: string): ScriptTurn[] =>
    solutions.find(([marker]) => prompt.includes(marker))?.[1] ?? [{ answer: 'No task found.' }];
}
