import { describe, expect, it } from 'vitest';
import { describeWriteError, writeFailureError } from './write-failure.js';

const errno = (code: string, message = `${code}: something, write`) =>
  Object.assign(new Error(message), { code });

describe('describeWriteError', () => {
  it('says what a file system error means, with its code', () => {
    expect(describeWriteError(errno('ENOSPC'))).toBe('no space left on device (ENOSPC)');
    expect(describeWriteError(errno('EDQUOT'))).toBe('disk quota exceeded (EDQUOT)');
    expect(
      describeWriteError(errno('EXDEV', "EXDEV: cross-device link not permitted, link 'a'")),
    ).toBe('cross-device link not permitted (EXDEV)');
    expect(describeWriteError(new Error('plain'))).toBe('plain');
  });
});

describe('writeFailureError', () => {
  const run = {
    cwd: '/p',
    resultPath: '/p/out.jsonl',
    finished: 13,
    total: 40,
    saved: 12,
    rerun: (notSaved: number) =>
      `run it with --resume out.jsonl to run the ${notSaved} cases not saved`,
  };

  it('names the result file, the cause, what is saved and what is not', () => {
    const error = writeFailureError(
      { kind: 'results', path: '/p/out.jsonl', error: errno('ENOSPC') },
      run,
    );
    expect(error.message).toBe(
      'could not write out.jsonl: no space left on device (ENOSPC); the run stopped after 13 of 40 cases; 12 results are saved in it; 1 more finished but could not be saved',
    );
    expect(error.hint).toBe(
      'free some space on that disk, then run it with --resume out.jsonl to run the 28 cases not saved',
    );
  });

  it('names the dump folder and where the results are', () => {
    const error = writeFailureError(
      { kind: 'trace dumps', path: '/p/.agentv/traces', error: errno('EIO') },
      { ...run, finished: 1, saved: 1 },
    );
    expect(error.message).toBe(
      'could not write trace dumps to .agentv/traces/: input/output error (EIO); the run stopped after 1 of 40 cases; 1 result is saved in out.jsonl',
    );
    expect(error.hint).toMatch(/^free some space on that disk \(or choose another folder\), then /);
  });
});
