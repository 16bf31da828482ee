import { AgentvError } from './agentv-error.js';

/** A case or flag asks for a target the targets file does not define. */
export class UnknownTargetError extends AgentvError {
  override readonly kind = 'unknown-target';

  constructor(name: string, available: readonly string[], source: string) {
    super(`unknown target "${name}" (requested by ${source})`, {
      hint:
        available.length > 0
          ? `define it in the targets file or use one of: ${available.join(', ')}`
          : 'no targets are defined; add a targets file (.agentv/targets.yaml) or pass --targets PATH',
    });
  }
}
