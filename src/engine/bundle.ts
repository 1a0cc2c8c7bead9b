/** Where this bundle lies: its PDF worker (pdf-extract-worker.js) and local-embed-worker.js lie beside it. */
export const bundleDir: string | undefined = typeof __dirname === 'string' ? __dirname : undefined;
