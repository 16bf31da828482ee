/** A unified diff, each line coloured by its first character, shown as text. */
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.split('\n');
  return (
    <pre class="diff" data-testid="diff">
      {lines.map((line, index) => {
        const kind =
          line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')
            ? 'file'
            : line.startsWith('@@')
              ? 'hunk'
              : line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : 'ctx';
        return (
          <span class={`diff-${kind}`} key={index}>
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}
