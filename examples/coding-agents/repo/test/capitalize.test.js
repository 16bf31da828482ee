import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capitalize } from '../src/capitalize.js';

test('capitalize upper-cases the first letter only', () => {
  assert.equal(capitalize('hello world'), 'Hello world');
  assert.equal(capitalize(''), '');
});
