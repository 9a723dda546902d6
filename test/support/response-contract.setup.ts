import { checkRecordedResponses, responseContractMode, writeResponseContractReport } from './response-contract';

/**
 * Runs after every e2e suite (jest.config.js `setupFilesAfterEnv`): checks each response the suite's test apps
 * sent against the served OpenAPI document (test/support/response-contract.ts) and fails the suite with the list
 * of violations (issue 22 acceptance 3).
 */
afterAll(async () => {
  if (responseContractMode() === 'off') return;
  const figures = await checkRecordedResponses();
  writeResponseContractReport(expect.getState().testPath ?? 'unknown', figures);
  if (figures.violations.length > 0 && responseContractMode() === 'enforce') {
    const unique = [...new Set(figures.violations)];
    throw new Error(`${unique.length} response(s) break the OpenAPI document (ATRIUM_RESPONSE_CONTRACT=report to only list them):\n  ${unique.join('\n  ')}`);
  }
});
