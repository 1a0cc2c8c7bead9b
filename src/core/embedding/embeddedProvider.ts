/**
 * The default provider: the in-process hashed encoder. Never touches the network,
 * so the extension works the moment it is installed.
 */
import { EMBEDDED_DIM, EMBEDDED_MODEL, encode } from './embeddedEncoder';
import { ProviderError, storageKey, type EmbedOptions, type EmbeddingProvider } from './provider';

export class EmbeddedProvider implements EmbeddingProvider {
  readonly id = 'embedded';
  readonly model = EMBEDDED_MODEL;
  readonly key = storageKey('embedded', EMBEDDED_MODEL);

  async dimension(): Promise<number> {
    return EMBEDDED_DIM;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const kind = options.kind ?? 'passage';
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      // Checked per text so a long batch can be cancelled promptly.
      if (options.signal?.aborted) throw new ProviderError('embedding aborted', this.id, this.model, undefined, 'aborted');
      out.push(encode(texts[i], kind));
    }
    return out;
  }
}
