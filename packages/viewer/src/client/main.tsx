import { type JSX, render } from 'preact';
import { CasePage } from './case-page.js';
import { ComparePage } from './compare-page.js';
import { HistoryPage } from './history-page.js';
import { href, useRoute } from './router.js';
import { RunPage } from './run-page.js';
import { ErrorBox } from './widgets.js';

function App() {
  const { page, params } = useRoute();
  const key = params.get('key') ?? '';
  let content: JSX.Element;
  if (page === 'run') content = <RunPage runKey={key} key={key} />;
  else if (page === 'case') content = <CasePage runKey={key} line={Number(params.get('line'))} />;
  else if (page === 'compare') {
    content = (
      <ComparePage
        base={params.get('base') ?? ''}
        next={params.get('new') ?? ''}
        baseTarget={params.get('baseTarget')}
        newTarget={params.get('newTarget')}
      />
    );
  } else if (page === 'history') content = <HistoryPage />;
  else content = <ErrorBox message="No such page." />;
  return (
    <>
      <header class="top">
        <a class="brand" href={href('history')}>
          AgentV
        </a>
        <nav>
          <a href={href('history')}>Runs</a>
        </nav>
      </header>
      {content}
    </>
  );
}

render(<App />, document.getElementById('app')!);
