// The report's styles and script, inlined into the page so it opens from disk
// with no server and no network. The script is plain ES2017 run by the browser;
// it builds every element with textContent, never innerHTML, so nothing from a
// result is ever parsed as markup.

export const REPORT_STYLES = `
:root {
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0;
  --pass: #1a7f37; --fail: #cf222e; --error: #8250df; --accent: #0969da;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d;
    --pass: #3fb950; --fail: #f85149; --error: #ab7df8; --accent: #4493f8; }
}
body { margin: 0; padding: 24px; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.meta { color: var(--muted); font-size: 13px; }
.cards { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 16px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 90px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card.passed .value { color: var(--pass); } .card.failed .value { color: var(--fail); }
.card.errored .value { color: var(--error); }
.histogram { display: flex; align-items: flex-end; gap: 12px; height: 160px; padding: 8px 0; }
.bin { flex: 1; display: flex; flex-direction: column; align-items: center; justify-content: flex-end; height: 100%; }
.bin .bar { width: 100%; background: var(--accent); border-radius: 3px 3px 0 0; min-height: 1px; }
.bin .count { font-size: 12px; font-variant-numeric: tabular-nums; }
.bin .range { font-size: 12px; color: var(--muted); margin-top: 4px; font-family: ui-monospace, monospace; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
.toolbar button { font: inherit; font-size: 13px; padding: 4px 12px; border: 1px solid var(--line); border-radius: 16px; background: var(--panel); color: var(--fg); cursor: pointer; }
.toolbar button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
.toolbar select { font: inherit; font-size: 13px; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
.toolbar input { font: inherit; font-size: 13px; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.case-row { cursor: pointer; }
tr.case-row:hover { background: var(--panel); }
.toggle { font: inherit; background: none; border: none; color: var(--accent); cursor: pointer; padding: 0; text-align: left; }
.status { display: inline-block; font-size: 11px; font-weight: 700; padding: 1px 6px; border-radius: 4px; color: #fff; }
.status.passed { background: var(--pass); } .status.failed { background: var(--fail); }
.status.errored { background: var(--error); }
tr.details > td { background: var(--panel); padding: 12px 16px; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin: 4px 0; font-size: 12px; max-height: 360px; overflow: auto; }
pre.error { border-color: var(--error); }
ul.misses li { color: var(--fail); } ul.hits li { color: var(--pass); }
.timeline { list-style: none; margin: 0; padding: 0 0 0 16px; border-left: 2px solid var(--line); }
.event { position: relative; margin: 0 0 8px; padding-left: 12px; }
.event::before { content: ""; position: absolute; left: -23px; top: 6px; width: 10px; height: 10px; border-radius: 50%; background: var(--muted); border: 2px solid var(--panel); }
.event.tool_call::before { background: var(--accent); } .event.tool_result::before { background: var(--pass); }
.event.error::before { background: var(--fail); } .event.model_step::before { background: var(--error); }
.event .type { font-family: ui-monospace, monospace; font-size: 12px; font-weight: 600; }
.event .name { font-family: ui-monospace, monospace; font-size: 12px; margin-left: 6px; }
.event .offset { color: var(--muted); font-size: 12px; margin-left: 6px; font-variant-numeric: tabular-nums; }
.event details summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.empty { color: var(--muted); padding: 12px 0; }
.more { margin: 12px 0; }
/* Nothing may widen the page: long unbroken ids, paths, answers and trace text wrap; a table
   wider than a phone scrolls inside its own box. */
.meta, td, li, .event .text, .evaluators div { overflow-wrap: anywhere; }
.table-scroll { max-width: 100%; overflow-x: auto; }
.bin { min-width: 0; } .bin .range { text-align: center; overflow-wrap: anywhere; }
.toolbar input { flex: 1 1 220px; min-width: 0; max-width: 100%; }
.chat { display: flex; flex-direction: column; gap: 6px; margin: 8px 0; }
.chat .bubble { max-width: 80%; padding: 8px 12px; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font: inherit; }
.chat .bubble.user { align-self: flex-end; background: rgba(37, 99, 235, 0.12); }
.chat .bubble.assistant { align-self: flex-start; background: rgba(127, 127, 127, 0.12); }
.chat .turn-grade { align-self: flex-start; color: var(--muted); font-size: 12px; }
@media (max-width: 640px) {
  body { padding: 12px; }
  .histogram { gap: 4px; }
  .bin .range { font-size: 10px; }
  th.optional, td.optional { display: none; }
  .toolbar button { padding: 6px 12px; }
}
`;

export const REPORT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('agentv-data').textContent);
  var app = document.getElementById('app');
  var PAGE = 500;
  var state = { filter: 'all', search: '', target: '', shown: PAGE };
  var targets = data.statistics.targets || [];
  var ORDER = { errored: 0, failed: 1, passed: 2 };
  var cases = data.cases.slice().sort(function (a, b) {
    return ORDER[a.status] - ORDER[b.status] || a.score - b.score || compare(a.id, b.id);
  });

  function compare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (key) {
        var value = props[key];
        if (value === undefined || value === null) return;
        if (key === 'text') node.textContent = String(value);
        else if (key === 'className') node.className = value;
        else if (key === 'onclick') node.addEventListener('click', value);
        else if (key === 'oninput') node.addEventListener('input', value);
        else node.setAttribute(key, String(value));
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function fixed(value) { return value === null || value === undefined ? '-' : value.toFixed(3); }
  function duration(ms) { return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(2) + ' s'; }
  function pretty(value) { return typeof value === 'string' ? value : JSON.stringify(value, null, 2); }

  function card(label, value, className) {
    return el('div', { className: 'card ' + (className || '') }, [
      el('div', { className: 'label', text: label }),
      el('div', { className: 'value', text: value }),
    ]);
  }

  function renderSummary() {
    var s = data.statistics;
    var header = el('header', { 'data-testid': 'summary' }, [
      el('h1', { text: data.title }),
      el('div', { className: 'meta', text: 'Generated ' + new Date(data.generatedAt).toLocaleString() +
        (data.resultFile ? ' \\u00b7 results in ' + data.resultFile : '') }),
      el('p', { className: 'totals', 'data-testid': 'totals',
        text: s.total + (s.total === 1 ? ' case: ' : ' cases: ') + s.passed + ' passed, ' +
          s.failed + ' failed, ' + s.errored + ' errored' }),
      el('p', { className: 'totals', 'data-testid': 'failure-classes',
        text: failureClassText(s.failureClasses) }),
      el('div', { className: 'cards' }, [
        card('Cases', String(s.total)),
        card('Passed', String(s.passed), 'passed'),
        card('Failed', String(s.failed), 'failed'),
        card('Errored', String(s.errored), 'errored'),
        card('Mean', fixed(s.mean)),
        card('Median', fixed(s.median)),
        card('Min', fixed(s.min)),
        card('Max', fixed(s.max)),
        card('Std dev', fixed(s.standardDeviation)),
      ]),
    ]);
    var metrics = s.metrics || [];
    if (metrics.length > 0) {
      header.appendChild(el('div', { className: 'cards', 'data-testid': 'metrics' }, metrics.map(function (m) {
        return card(m.name + ' (' + m.cases + (m.cases === 1 ? ' case)' : ' cases)'), fixed(m.mean));
      })));
    }
    app.appendChild(header);
  }

  function failureClassText(classes) {
    var names = ['agent', 'infra', 'timeout', 'budget', 'grader'].filter(function (name) { return classes && classes[name]; });
    if (names.length === 0) return 'No failures';
    return 'Failures by class: ' + names.map(function (name) { return name + ' ' + classes[name]; }).join(', ');
  }

  function percent(value) { return value === null || value === undefined ? '-' : (value * 100).toFixed(1) + '%'; }
  function tokens(value) { return value === null || value === undefined ? '-' : value.toLocaleString('en-US'); }
  function usd(value) {
    if (value === null || value === undefined) return '-';
    if (value <= 0) return '$0';
    return '$' + value.toFixed(Math.min(10, Math.max(4, Math.ceil(-Math.log10(value)) + 1)));
  }

  function renderTargets() {
    if (targets.length < 2) return;
    var columns = ['Target', 'Cases', 'Passed', 'Failed', 'Errored', 'Pass rate', 'Mean', 'Tokens in', 'Tokens out', 'Cost', 'Duration'];
    app.appendChild(el('section', { 'aria-label': 'Targets' }, [
      el('h2', { text: 'Targets side by side' }),
      el('table', { className: 'targets', 'data-testid': 'targets' }, [
        el('thead', null, [el('tr', null, columns.map(function (title) { return el('th', { text: title }); }))]),
        el('tbody', null, targets.map(function (t) {
          return el('tr', { 'data-target': t.target }, [
            el('td', { text: t.target }),
            el('td', { className: 'num', text: String(t.total) }),
            el('td', { className: 'num', text: String(t.passed) }),
            el('td', { className: 'num', text: String(t.failed) }),
            el('td', { className: 'num', text: String(t.errored) }),
            el('td', { className: 'num', text: percent(t.passRate) }),
            el('td', { className: 'num', text: fixed(t.mean) }),
            el('td', { className: 'num', text: tokens(t.tokens && t.tokens.input) }),
            el('td', { className: 'num', text: tokens(t.tokens && t.tokens.output) }),
            el('td', { className: 'num', text: usd(t.costUsd) }),
            el('td', { className: 'num', text: duration(t.durationMs) }),
          ]);
        })),
      ]),
    ]));
  }

  function renderHistogram() {
    var bins = data.statistics.histogram;
    var largest = Math.max.apply(null, bins.map(function (bin) { return bin.count; }).concat([1]));
    var excluded = data.statistics.errored > 0 ? ' (' + data.statistics.errored + (data.statistics.errored === 1 ? ' errored case' : ' errored cases') + ' excluded)' : '';
    app.appendChild(el('section', { 'aria-label': 'Score distribution' }, [
      el('h2', { text: 'Score distribution' + excluded }),
      el('div', { className: 'histogram', 'data-testid': 'histogram' }, bins.map(function (bin, index) {
        var last = index === bins.length - 1;
        var range = '[' + bin.from.toFixed(1) + ', ' + bin.to.toFixed(1) + (last ? ']' : ')');
        var bar = el('div', { className: 'bar', title: bin.count + ' cases' });
        bar.style.height = Math.round((bin.count / largest) * 120) + 'px';
        return el('div', { className: 'bin', 'data-range': range }, [
          el('div', { className: 'count', text: String(bin.count) }),
          bar,
          el('div', { className: 'range', text: range }),
        ]);
      })),
    ]));
  }

  // Columns a phone leaves out (CSS), by position.
  var OPTIONAL = [null, null, 'optional', null, null, 'optional', 'optional', null];
  var tbody;
  var emptyNote;
  var moreButton;
  var filterButtons = {};

  function matches(item) {
    if (state.filter !== 'all' && item.status !== state.filter) return false;
    if (state.target !== '' && item.target !== state.target) return false;
    return state.search === '' || item.id.toLowerCase().indexOf(state.search) !== -1;
  }

  function renderCasesSection() {
    var counts = { all: cases.length, failed: 0, errored: 0, passed: 0 };
    cases.forEach(function (item) { counts[item.status]++; });
    var filters = [['all', 'All'], ['failed', 'Failed'], ['errored', 'Errored'], ['passed', 'Passed']];
    var toolbar = el('div', { className: 'toolbar', role: 'toolbar' }, filters.map(function (entry) {
      var button = el('button', {
        type: 'button', 'data-filter': entry[0], 'aria-pressed': String(entry[0] === state.filter),
        text: entry[1] + ' (' + counts[entry[0]] + ')',
        onclick: function () { state.filter = entry[0]; state.shown = PAGE; update(); },
      });
      filterButtons[entry[0]] = button;
      return button;
    }));
    if (targets.length > 1) {
      toolbar.appendChild(el('select', {
        'aria-label': 'Filter by target', 'data-testid': 'target-filter',
        oninput: function (event) { state.target = event.target.value; state.shown = PAGE; update(); },
      }, [el('option', { value: '', text: 'All targets' })].concat(targets.map(function (t) {
        return el('option', { value: t.target, text: t.target });
      }))));
    }
    toolbar.appendChild(el('input', {
      type: 'search', placeholder: 'Filter by case id', 'aria-label': 'Filter by case id',
      oninput: function (event) { state.search = event.target.value.trim().toLowerCase(); state.shown = PAGE; update(); },
    }));
    tbody = el('tbody');
    emptyNote = el('div', { className: 'empty', text: 'No cases match.' });
    moreButton = el('button', { type: 'button', className: 'more', onclick: function () { state.shown += PAGE; update(); } });
    app.appendChild(el('section', { 'aria-label': 'Cases' }, [
      el('h2', { text: 'Cases' }),
      toolbar,
      el('div', { className: 'table-scroll' }, [el('table', { 'data-testid': 'cases' }, [
        el('thead', null, [el('tr', null, ['Status', 'Case', 'Dataset', 'Target', 'Score', 'Duration', 'Attempts', 'Details']
          .map(function (title, index) { return el('th', { text: title, className: OPTIONAL[index] }); }))]),
        tbody,
      ])]),
      emptyNote,
      moreButton,
    ]));
  }

  function update() {
    Object.keys(filterButtons).forEach(function (key) {
      filterButtons[key].setAttribute('aria-pressed', String(key === state.filter));
    });
    // Each case's rows are built once and only moved in and out afterwards, so filtering
    // a large report does work in proportion to the rows shown.
    var rows = document.createDocumentFragment();
    var visible = cases.filter(matches);
    visible.slice(0, state.shown).forEach(function (item) {
      var built = rowsOf(item);
      rows.appendChild(built[0]);
      rows.appendChild(built[1]);
    });
    tbody.replaceChildren(rows);
    emptyNote.hidden = visible.length !== 0;
    moreButton.hidden = visible.length <= state.shown;
    moreButton.textContent = 'Show ' + Math.min(PAGE, visible.length - state.shown) + ' more of ' +
      (visible.length - state.shown);
  }

  var builtRows = new Map();
  function rowsOf(item) {
    var built = builtRows.get(item);
    if (!built) {
      built = buildCase(item);
      builtRows.set(item, built);
    }
    return built;
  }

  function buildCase(item) {
    var detailsRow = el('tr', { className: 'details', hidden: 'hidden' });
    var toggle = el('button', { type: 'button', className: 'toggle', 'aria-expanded': 'false', text: 'Show' });
    var row = el('tr', { className: 'case-row ' + item.status, 'data-case': item.id, 'data-status': item.status }, [
      el('td', null, [el('span', { className: 'status ' + item.status, text: item.status.toUpperCase(),
        title: item.failureClass ? 'failure class: ' + item.failureClass : '' })]),
      el('td', { className: 'case-id', text: item.id }),
      el('td', { text: item.dataset, title: item.evalFile, className: 'optional' }),
      el('td', { text: item.target }),
      el('td', { className: 'num', text: item.status === 'errored' ? '-' : fixed(item.score) }),
      el('td', { className: 'num optional', text: duration(item.durationMs) }),
      el('td', { className: 'num optional', text: String(item.attempts) }),
      el('td', null, [toggle]),
    ]);
    row.addEventListener('click', function () {
      var open = detailsRow.hidden;
      if (open && !detailsRow.firstChild) {
        detailsRow.appendChild(el('td', { colspan: '8' }, [renderDetails(item)]));
      }
      detailsRow.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
      toggle.textContent = open ? 'Hide' : 'Show';
    });
    return [row, detailsRow];
  }

  function list(items, className) {
    return el('ul', { className: className }, items.map(function (text) { return el('li', { text: text }); }));
  }

  function renderDetails(item) {
    var parts = [el('div', { className: 'meta', text: item.evalFile + ' \\u00b7 target ' + item.target +
      ' \\u00b7 ' + item.attempts + (item.attempts === 1 ? ' attempt' : ' attempts') })];
    if (item.error !== null) {
      parts.push(el('h3', { text: 'Error' }), el('pre', { className: 'error', 'data-testid': 'error', text: item.error }));
    }
    if (item.conversation) {
      parts.push(el('h3', { text: 'Conversation (ended: ' + item.conversation.end + ')' }), renderConversation(item.conversation));
    }
    parts.push(el('h3', { text: 'Answer' }), el('pre', { className: 'answer', 'data-testid': 'answer', text: item.answer || '(no answer)' }));
    if (item.misses.length > 0) parts.push(el('h3', { text: 'Misses' }), list(item.misses, 'misses'));
    if (item.hits.length > 0) parts.push(el('h3', { text: 'Hits' }), list(item.hits, 'hits'));
    if (item.reasoning) parts.push(el('h3', { text: 'Reasoning' }), el('pre', { text: item.reasoning }));
    if (item.evaluators.length > 0) parts.push(el('h3', { text: 'Evaluators' }), renderEvaluators(item.evaluators));
    if (item.workspace) parts.push(el('h3', { text: 'Workspace' }), renderWorkspace(item.workspace));
    parts.push(el('h3', { text: 'Trace' }), renderTrace(item));
    return el('div', { className: 'case-details' }, parts);
  }

  function renderConversation(conversation) {
    var children = [];
    conversation.turns.forEach(function (turn) {
      children.push(el('pre', { className: 'bubble user', 'data-testid': 'chat-user',
        title: 'turn ' + turn.turn + ' (' + turn.source + ')', text: turn.user }));
      children.push(el('pre', { className: 'bubble assistant', 'data-testid': 'chat-assistant',
        text: turn.error !== null && turn.answer === '' ? '(no answer: ' + turn.error + ')' : turn.answer || '(no answer)' }));
      if (turn.status !== null) {
        var grade = 'turn ' + turn.turn + ': ' + turn.status + (turn.score === null ? '' : ' (' + turn.score.toFixed(2) + ')');
        if (turn.misses.length > 0) grade += ' \u2014 ' + turn.misses.join('; ');
        children.push(el('div', { className: 'turn-grade', 'data-testid': 'chat-grade', text: grade }));
      }
    });
    return el('div', { className: 'chat', 'data-testid': 'conversation' }, children);
  }

  function renderWorkspace(workspace) {
    var count = workspace.filesChanged;
    var children = [el('div', { className: 'meta', 'data-testid': 'workspace-summary',
      text: count + (count === 1 ? ' file' : ' files') + ' changed, +' + workspace.insertions + ' \u2212' +
        workspace.deletions + (workspace.keptAt ? ' \u00b7 kept at ' + workspace.keptAt : '') })];
    if (workspace.files && workspace.files.length > 0) {
      children.push(el('ul', { className: 'files', 'data-testid': 'workspace-files' }, workspace.files.map(function (file) {
        return el('li', { text: file.status + '  ' + file.path + (file.binary ? ' (binary)' : '') });
      })));
    }
    if (workspace.diff) {
      children.push(el('details', { 'data-testid': 'workspace-diff' }, [el('summary', { text: 'Diff' }),
        el('pre', { className: 'diff', text: workspace.diff })]));
    }
    return el('div', null, children);
  }

  function renderEvaluators(evaluators) {
    return el('table', { className: 'evaluators', 'data-testid': 'evaluators' }, [
      el('thead', null, [el('tr', null, ['Evaluator', 'Type', 'Score', 'Weight', 'Verdict', 'Details']
        .map(function (title) { return el('th', { text: title }); }))]),
      el('tbody', null, evaluators.map(function (evaluator) {
        var details = [];
        if (evaluator.error) details.push(el('pre', { className: 'error', text: evaluator.error }));
        if (evaluator.misses.length > 0) details.push(list(evaluator.misses, 'misses'));
        if (evaluator.hits.length > 0) details.push(list(evaluator.hits, 'hits'));
        if (evaluator.reasoning) details.push(el('div', { text: evaluator.reasoning }));
        return el('tr', null, [
          el('td', { text: evaluator.metric ? evaluator.name + ' [' + evaluator.metric + ']' : evaluator.name }),
          el('td', { text: evaluator.type }),
          el('td', { className: 'num', text: fixed(evaluator.score) }),
          el('td', { className: 'num', text: String(evaluator.weight) }),
          el('td', { text: evaluator.verdict }),
          el('td', null, details),
        ]);
      })),
    ]);
  }

  function renderTrace(item) {
    if (!item.trace) return el('div', { className: 'empty', text: 'No trace: the agent reported none.' });
    var summary = item.traceSummary;
    var tools = summary ? summary.toolNames.map(function (name) {
      return name + ' \\u00d7' + summary.toolCallsByName[name];
    }).join(', ') : '';
    var first = item.trace.length > 0 ? Date.parse(item.trace[0].timestamp) : NaN;
    return el('div', null, [
      summary ? el('div', { className: 'meta', 'data-testid': 'trace-summary',
        text: summary.eventCount + ' events' + (tools ? ' \\u00b7 tools: ' + tools : '') +
          ' \\u00b7 ' + summary.errorCount + ' errors' }) : null,
      el('ol', { className: 'timeline', 'data-testid': 'timeline' }, item.trace.map(function (event) {
        var at = Date.parse(event.timestamp);
        var offset = isNaN(at) || isNaN(first) ? event.timestamp : '+' + ((at - first) / 1000).toFixed(3) + ' s';
        var children = [
          el('span', { className: 'type', text: event.type }),
          event.name ? el('span', { className: 'name', text: event.name }) : null,
          el('span', { className: 'offset', title: event.timestamp, text: offset }),
        ];
        if (event.text) children.push(el('div', { className: 'text', text: event.text }));
        ['input', 'output', 'metadata'].forEach(function (key) {
          if (event[key] === undefined) return;
          children.push(el('details', null, [el('summary', { text: key }), el('pre', { text: pretty(event[key]) })]));
        });
        return el('li', { className: 'event ' + event.type, 'data-type': event.type }, children);
      })),
    ]);
  }

  renderSummary();
  renderTargets();
  renderHistogram();
  renderCasesSection();
  update();
})();
`;
