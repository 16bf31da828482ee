import { createHash } from 'node:crypto';
import path from 'node:path';
import { UsageError } from '@agentv/core/internal';
import { findUp } from './project-root.js';

/** One shard of a run: `index` is 1-based, `count` the number of shards. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `--shard i/n` (1-based, 1 <= i <= n), or throws a usage error with a hint. */
export function parseShard(value: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard must be i/n with 1 <= i <= n, got "${value}"`, {
      hint: 'shards count from 1: with 4 machines pass --shard 1/4 … --shard 4/4',
    });
  }
  return { index, count };
}

/**
 * The 1-based shard a case belongs to among `count` shards. It depends only on
 * the eval file (relative to its project root) and the case id, so a case stays
 * in its shard whatever else the run holds; sha256 spreads cases evenly.
 */
export function shardOf(evalFile: string, caseId: string, count: number): number {
  const digest = createHash('sha256').update(`${evalFile}\n${caseId}`).digest();
  return (digest.readUIntBE(0, 6) % count) + 1;
}

/**
 * Names eval files relative to their project root: the nearest folder holding
 * `.agentv/`, else the repository root (`.git`), else `cwd`; always with `/`,
 * so every machine of a sharded run names a file the same way.
 */
export function createEvalFileNamer(cwd: string): (absolutePath: string) => string {
  const roots = new Map<string, string>();
  const rootOf = (dir: string): string => {
    let root = roots.get(dir);
    if (root === undefined) {
      root = findUp(dir, '.agentv') ?? findUp(dir, '.git') ?? cwd;
      roots.set(dir, root);
    }
    return root;
  };
  // Asked once per case (keys, shards, resume), for a handful of files: computed once per file.
  const names = new Map<string, string>();
  return (absolutePath) => {
    let name = names.get(absolutePath);
    if (name === undefined) {
      const relative = path.relative(rootOf(path.dirname(absolutePath)), absolutePath);
      name = relative.split(path.sep).join('/');
      names.set(absolutePath, name);
    }
    return name;
  };
}

/** A run's identity: a hash of every (eval file, case id, target) it selected, before sharding. */
export function runIdOf(keys: readonly string[]): string {
  return runIdOfSorted([...keys].sort());
}

/**
 * `runIdOf` the keys `head + part + tail` of `sorted`, parts already in the order of their keys
 * (whole keys when `head` and `tail` are empty). Each key and a newline are hashed a thousand keys
 * at a time, joined in one string: one call per key cost more than the sort, and one call for all
 * would copy every key at once.
 */
export function runIdOfSorted(sorted: readonly string[], head = '', tail = ''): string {
  const hash = createHash('sha256');
  const between = `${tail}\n${head}`;
  for (let start = 0; start < sorted.length; start += RUN_ID_KEYS_PER_UPDATE) {
    const keys = sorted.slice(start, start + RUN_ID_KEYS_PER_UPDATE).join(between);
    hash.update(`${head}${keys}${tail}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

const RUN_ID_KEYS_PER_UPDATE = 1000;

/** The key a result is known by across shards and result files. */
export function caseKey(evalFile: string, caseId: string, target: string): string {
  return JSON.stringify([evalFile, caseId, target]);
}
