/**
 * Jest runs TypeScript through SWC (decorators + decorator metadata, CommonJS output). Nest 12 ships ESM only,
 * so its packages are transformed too. Two projects: `unit` (pure rules beside the code, no database) and
 * `e2e` (the real AppModule over HTTP against real PostgreSQL, see test/support/global-setup.ts).
 */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  setupFiles: ['reflect-metadata'],
};

module.exports = {
  testTimeout: 60000,
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
