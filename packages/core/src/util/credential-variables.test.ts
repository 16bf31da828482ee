import { describe, expect, it } from 'vitest';
import { credentialValues, isCredentialVariable } from './credential-variables.js';

describe('isCredentialVariable', () => {
  it('knows the names credentials go by', () => {
    const names = [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'AZURE_OPENAI_KEY',
      'GITHUB_TOKEN',
      'NPM_TOKEN',
      'HF_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'DB_PASSWORD',
      'PGPASSWORD',
      'MYSQL_PWD',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'CLIENT_SECRET',
      'my-service.apikey',
      'SSH_PASSPHRASE',
    ];
    expect(names.filter((name) => !isCredentialVariable(name))).toEqual([]);
  });

  it('leaves ordinary variables alone', () => {
    const names = [
      'PATH',
      'HOME',
      'PWD',
      'OLDPWD',
      'SSH_AUTH_SOCK',
      'TOKENIZERS_PARALLELISM',
      'KEYBOARD_LAYOUT',
      'NODE_OPTIONS',
      'TERM',
    ];
    expect(names.filter(isCredentialVariable)).toEqual([]);
  });
});

describe('credentialValues', () => {
  it('takes the values of credential variables of eight characters or more, each once', () => {
    expect(
      credentialValues({
        OPENAI_API_KEY: 'sk-test-0123456789',
        OTHER_TOKEN: 'sk-test-0123456789',
        FEATURE_TOKEN: 'true',
        BLANK_SECRET: '          ',
        DB_PASSWORD: 'hunter22',
        HOME: '/home/someone-long',
        UNSET_KEY: undefined,
      }),
    ).toEqual(['sk-test-0123456789', 'hunter22']);
  });
});
