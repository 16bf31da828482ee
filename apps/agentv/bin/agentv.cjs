#!/usr/bin/env node
'use strict';
// CommonJS, as the bundle it loads: an ES-module bin starts Node's ES-module loader first.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // The hottest call in scripts and CI checks: answer it without loading the CLI.
  process.stdout.write(`${require('../bundle/version.cjs').readVersion()}\n`);
} else {
  // Keep V8's young generation at its starting size instead of letting it grow to 3 x 16 MiB:
  // a run's objects are short-lived or kept for the whole run, so a larger nursery mostly adds
  // resident memory (and makes every agent spawn, a fork of this process, copy more page tables).
  // Takes effect although V8 is already running; set before anything is allocated in bulk.
  require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
  // No Sparkplug, V8's baseline compiler: it turns every warm function into machine code, which
  // a run of a second or so spends more time writing (and faulting in) than it gains; TurboFan
  // still optimizes what gets hot. A 10,000-case batch took ~18 ms less (17 of 24 interleaved
  // pairs), 100,000 cases the same. Set before any code is loaded, and never put back, so V8's
  // code cache (whose flags must match) is made and used under it.
  require('node:v8').setFlagsFromString('--no-sparkplug');
  // Scavenge when the young generation is full, not also from the task V8 posts once it is about
  // 80 % full: in a run that makes and drops thousands of small objects per turn of the event
  // loop, the task fired every few ms, each time doing a scavenge's fixed work for less garbage
  // (a 10,000-case batch: 34 of its 75 scavenges). 100,000 cases 177 ms less (6 of 6 interleaved
  // pairs), 10,000 cases 15 ms less (10 of 14), one case the same. Set here for the same reason
  // as the line above.
  require('node:v8').setFlagsFromString('--no-minor-gc-task');
  // Raise glibc's malloc thresholds the way glibc does by itself once it frees a large block
  // (mallopt(3), M_MMAP_THRESHOLD, "dynamic adjustment"): this block is never written, so it
  // costs one mmap and one munmap, and it is freed by V8's first collection. After that the
  // trim threshold is 32 MiB instead of ~1 MiB (set by the bundle's files), so memory that V8's
  // compiler and GC threads free is kept for reuse, not handed back to the kernel and faulted
  // in again page by page (~1,500 faults in a 10,000-case batch; ~18 us each in VMs whose page
  // tables are shadowed). Elsewhere (another libc) this is one short-lived buffer.
  Buffer.allocUnsafeSlow(16 * 1024 * 1024 - 64 * 1024);
  let settled = false;
  require('../bundle/load-cli-bundle.cjs')
    .loadCliBundle()
    .runCli(argv)
    .then((code) => {
      settled = true;
      process.exitCode = code;
      // Once the run's work is done and the event loop has emptied ('exit'), leave through
      // process.exit from the last 'exit' listener: the other listeners have run, nothing is
      // pending, and Node then skips tearing down the heap page by page (freeing a 10,000-case
      // run's heap that way took ~6 ms more than the kernel's exit does on its own).
      process.once('exit', () => process.exit());
    });
  // A run that never settles must not pass for a success (an ES-module bin's unsettled
  // top-level await exited 13 likewise).
  process.once('exit', (code) => {
    if (!settled && code === 0) process.exitCode = 13;
  });
}
