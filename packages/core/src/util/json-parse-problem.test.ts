import { describe, expect, it } from 'vitest';
import { jsonParseProblem } from './json-parse-problem.js';

function problem(text: string) {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonParseProblem(error, text);
  }
  throw new Error('parsed');
}

describe('jsonParseProblem', () => {
  it('turns the position in the message into a column', () => {
    expect(problem('{"id":"a" x}')).toEqual({
      column: 11,
      message: "Expected ',' or '}' after property value",
    });
    expect(problem('{"a":1}x')).toEqual({
      column: 8,
      message: 'Unexpected non-whitespace character after JSON',
    });
  });

  it('keeps the message and column 1 when there is no position', () => {
    expect(problem('')).toEqual({ column: 1, message: 'Unexpected end of JSON input' });
    expect(
      jsonParseProblem(
        new SyntaxError('Unexpected token in JSON at position 3 (line 1 column 4)'),
        'abcdef',
      ),
    ).toEqual({ column: 4, message: 'Unexpected token' });
  });
});
