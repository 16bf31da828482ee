import { z } from 'zod';

/** Files matched by these globs are guidelines unless `.agentv/config.yaml` says otherwise. */
export const DEFAULT_GUIDELINE_PATTERNS: readonly string[] = Object.freeze([
  '**/*.instructions.md',
  '**/instructions/**',
  '**/*.prompt.md',
  '**/prompts/**',
]);

/** Schema of `.agentv/config.yaml` as written. */
export const configFileSchema = z.looseObject({
  $schema: z.literal('agentv-config-v2').optional(),
  guideline_patterns: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Globs of attached files that are guidelines (sent as instructions, not as the question)',
    ),
  allowed_file_roots: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Folders outside the project that eval files and datasets may name files in (attachments, datasets, prompt and schema files), relative to the folder holding .agentv/ or absolute',
    ),
});

/** `.agentv/config.yaml` as written. */
export type ConfigFileInput = z.infer<typeof configFileSchema>;

/** The project configuration after loading, defaults applied. */
export interface AgentvConfig {
  /** Globs (relative to the repository root) of files that are guidelines. */
  guidelinePatterns: string[];
  /**
   * `allowed_file_roots` as absolute paths: folders besides the project root
   * that files named by eval files and datasets may be in.
   */
  allowedFileRoots: string[];
}

/** Keys `.agentv/config.yaml` understands. */
export const CONFIG_FILE_KEYS = Object.keys(configFileSchema.shape);
