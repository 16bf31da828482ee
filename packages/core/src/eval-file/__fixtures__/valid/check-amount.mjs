// Referenced by full-spec.yaml's code_judge; the loader checks that it exists.
process.stdout.write(JSON.stringify({ score: 1 }));
