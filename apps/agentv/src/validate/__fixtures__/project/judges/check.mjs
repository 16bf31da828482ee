process.stdout.write(JSON.stringify({ score: 1 }));
