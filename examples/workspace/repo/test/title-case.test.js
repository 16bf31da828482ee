import assert from 'node:assert/strict';
import { test } from 'node:test';
import { titleCase } from '../src/title-case.js';

test('titleCase capitalises every word', () => {
  assert.equal(titleCase('the quick fox'), 'The Quick Fox');
});
