/**
 * Lets `node -r ./test/chat/support/swc-register.cjs src/cli/chat/main.ts` run the TypeScript sources as a real
 * process, compiled on load by SWC with the options Jest uses (jest.config.js). ESM-only packages load through
 * Node's own require(esm), as in the built app.
 */
const { transformSync } = require('@swc/core');
const { readFileSync } = require('node:fs');

require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
