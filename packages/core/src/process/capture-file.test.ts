import { writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openCaptureFile } from './capture-file.js';

describe('openCaptureFile', () => {
  it('reads what was written before seal, with the size measured then', () => {
    const capture = openCaptureFile();
    try {
      writeSync(capture.fd, 'answer 1\n');
      capture.seal();
      expect(capture.size()).toBe(9);
      expect(capture.read()).toBe('answer 1\n');
      expect(capture.read({ maxBytes: 6, keep: 'head' })).toBe('answer');
    } finally {
      capture.close();
    }
  });

  it('seals a capture of any size: small ones by their first read, larger ones by their size', () => {
    for (const bytes of [0, 16 * 1024 - 1, 16 * 1024, 200 * 1024 + 3]) {
      const capture = openCaptureFile();
      try {
        if (bytes > 0) writeSync(capture.fd, 'x'.repeat(bytes));
        capture.seal();
        expect(capture.size()).toBe(bytes);
        expect(capture.read()).toHaveLength(bytes);
      } finally {
        capture.close();
      }
    }
  });

  it('measures again after a trim', () => {
    const capture = openCaptureFile();
    try {
      writeSync(capture.fd, 'a'.repeat(100));
      capture.seal();
      capture.trim({ maxBytes: 10, keep: 'head' });
      expect(capture.size()).toBe(10);
      expect(capture.read()).toBe('a'.repeat(10));
    } finally {
      capture.close();
    }
  });
});
