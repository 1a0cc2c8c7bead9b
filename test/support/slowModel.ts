import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { ProviderError, storageKey, type EmbeddingProvider, type EmbedOptions } from '../../src/core/embedding/provider';

/**
 * A "neural" provider (its id is not 'embedded', so it embeds in the background) with the
 * embedded model's deterministic vectors; counts passages embedded, and can fail on demand.
 */
export class SlowModel implements EmbeddingProvider {
  readonly id = 'neural-test';
  readonly key = storageKey('neural-test', 'm1');
  readonly model = 'm1';
  passages = 0;
  failAfter = Infinity;
  private readonly inner = new EmbeddedProvider();
  dimension() {
    return this.inner.dimension();
  }
  async embed(texts: string[], o: EmbedOptions = {}) {
    if (o.kind === 'passage') {
      if (this.passages + texts.length > this.failAfter)
        throw new ProviderError('the test server went away', this.id, this.model, 'http://127.0.0.1:9', 'unreachable');
      this.passages += texts.length;
    }
    return this.inner.embed(texts, o);
  }
}
