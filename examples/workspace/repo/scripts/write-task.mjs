// The before_each hook: writes TASK.md, the issue the agent is asked to fix in this case.
// AgentV runs it in the case's fresh workspace with the case id as its argument
// (`{{test_id}}` in the hook's argv list), before the agent starts; what it writes is part
// of the starting point, not of the agent's changes.
import { writeFileSync } from 'node:fs';

const tasks = {
  'fix-slugify':
    'slugify() joins words with underscores; it must use dashes (test/slugify.test.js).',
  'fix-title-case': 'titleCase() drops the second letter of every word (test/title-case.test.js).',
  'fix-truncate': 'truncate() returns one character too many when it cuts (test/truncate.test.js).',
};
const id = process.argv[2];
writeFileSync('TASK.md', `# ${id}\n\n${tasks[id] ?? 'No task for this case.'}\n`);
