import { describe, expect, it } from 'vitest';
import { renderFileFormat } from './render-command-template.js';

describe('renderFileFormat', () => {
  it('substitutes {path} and {basename}, as often as they appear', () => {
    expect(renderFileFormat('--file={path} --name={basename} {basename}', '/data/a b.txt')).toBe(
      '--file=/data/a b.txt --name=a b.txt a b.txt',
    );
  });

  it('keeps a path that contains {basename}, {path} or $ patterns as written', () => {
    const path = "/data/{basename}/$&-$'-$`-{path}.txt";
    expect(renderFileFormat('{path}', path)).toBe(path);
    expect(renderFileFormat('{basename}', path)).toBe("$&-$'-$`-{path}.txt");
  });
});
