/**
 * The spawn helper, a small Node program (CommonJS, run with `node -e`) that starts processes for
 * its owner. Arguments: the owner's pid and the grace period in ms.
 *
 * It reads requests from stdin, one JSON object per line: `i` the request's number, `f` the
 * program, `a` its arguments, `c` the working directory, `e` the environment as `KEY=value`
 * strings, `o` and `r` the owner's descriptors for stdout and stderr (opened again through
 * `/proc/<owner>/fd/`, so the child writes into the owner's capture files), `n` the text for the
 * child's stdin (absent: stdin is closed). Each child is started in a session and process group
 * of its own, as the owner's `runProcess` starts it.
 *
 * It answers on stdout, one JSON object per line: `ready` once it runs; then per request `p` (the
 * pid, as soon as the child is started), `x`/`s` (exit code and signal, once the child was
 * reaped), `e` (the fields of spawn's error when it could not start) or `t` (what `spawn` threw:
 * an argument the OS cannot take), with `u: 1` when the fault was the helper's own (the owner's
 * descriptors could not be opened), so that the owner starts that process itself.
 *
 * When stdin closes (the owner exited or was killed), the groups of children still running get
 * SIGTERM, SIGKILL after the grace period (the helper exits as soon as they are gone). Its
 * stderr goes nowhere.
 */
export const SPAWN_HELPER_SCRIPT = `
'use strict';
const { spawn } = require('node:child_process');
const { closeSync, openSync, constants } = require('node:fs');
const owner = process.argv[1];
const graceMs = Number(process.argv[2]) || 2000;
const live = new Set();
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');

function start(request) {
  const id = request.i;
  const opened = [];
  const reopen = (fd) => {
    const own = openSync('/proc/' + owner + '/fd/' + fd, constants.O_WRONLY);
    opened.push(own);
    return own;
  };
  let stdio;
  try {
    stdio = [request.n === undefined ? 'ignore' : 'pipe', reopen(request.o), reopen(request.r)];
  } catch (error) {
    for (const fd of opened) closeSync(fd);
    send({ i: id, t: { name: error.name, message: error.message, code: error.code }, u: 1 });
    return;
  }
  const env = {};
  for (const pair of request.e) {
    const at = pair.indexOf('=');
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  let child;
  try {
    child = spawn(request.f, request.a, { cwd: request.c, env, detached: true, stdio });
  } catch (error) {
    send({ i: id, t: { name: error.name, message: error.message, code: error.code } });
    return;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
  const pid = child.pid;
  child.on('error', (error) => {
    if (pid !== undefined) return;
    const { message, code, errno, syscall, path, spawnargs } = error;
    send({ i: id, e: { message, code, errno, syscall, path, spawnargs } });
  });
  if (pid === undefined) return;
  live.add(pid);
  send({ i: id, p: pid });
  child.on('exit', (code, signal) => {
    live.delete(pid);
    send({ i: id, x: code, s: signal });
  });
  if (request.n !== undefined) {
    child.stdin.on('error', () => {});
    child.stdin.end(request.n);
  }
}

function signalAll(signal) {
  for (const pid of live) {
    try {
      process.kill(-pid, signal);
    } catch {
      live.delete(pid);
    }
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  let from = 0;
  let end = chunk.indexOf('\\n');
  while (end !== -1) {
    const line = pending + chunk.slice(from, end);
    pending = '';
    if (line !== '') start(JSON.parse(line));
    from = end + 1;
    end = chunk.indexOf('\\n', from);
  }
  pending += chunk.slice(from);
});
// The owner is gone: what it started and had no time to record for its watchdog is stopped here.
process.stdin.on('end', () => {
  signalAll('SIGTERM');
  const deadline = Date.now() + graceMs;
  const poll = setInterval(() => {
    signalAll(0);
    if (live.size > 0 && Date.now() < deadline) return;
    signalAll('SIGKILL');
    process.exit(0);
  }, 20);
  poll.unref();
  if (live.size === 0) process.exit(0);
});
process.stdout.on('error', () => process.exit(0));
send('ready');
`;
