// Answers without reading stdin and exits at once.
process.stdout.write('{"score": 1, "hits": ["did not need the input"]}\n');
process.exit(0);
