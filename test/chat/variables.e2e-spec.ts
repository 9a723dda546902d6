import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { DigitalStaffEntity } from '../../src/chat/digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from '../../src/chat/staff-users/work-chat-user.entity';
import { renderTemplate } from '../../src/chat/variables/template.rules';
import { variablesByName } from '../../src/chat/variables/variable-resolution.rules';
import { VariablesService } from '../../src/chat/variables/variables.service';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Variables (chat-management-api.md, Console endpoints: `{C}/variableScopes`, `{C}/variableScopes/{scopeId}/definitions`,
 * `{C}/variables`; issue 6, Variables and acceptance 6): scopes by source, typed definitions with defaults, values per
 * subject checked against their type, recursive deletes, limits, the variables a contact sees, tenant isolation and
 * the write scope.
 */
describe('variables ({C}/variableScopes, {C}/variables)', () => {
  let testApp: TestApp;
  let token: string;
  let reader: string;
  let otherToken: string;
  let dataSource: DataSource;
  const C = '/api/acme/console';
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const CORP_ID = '5a0e7f8c-1d2b-4c3a-9e8f-7a6b5c4d3e2f';
  let contactId: string;
  let otherContactId: string;
  let staffId: string;
  let otherStaffId: string;

  /** A contact of `tenantId` added to staff user `workChatUserId` (stored directly: the contacts API is tested elsewhere). */
  const newContact = async (tenantId: string, externalUserId: string, workChatUserId = 'alice') =>
    (await dataSource.getRepository(ExternalContactEntity).save({ tenantId, corpId: CORP_ID, externalUserId, workChatUserId, name: externalUserId, tags: [], profile: {} })).id;
  const newDigitalStaff = async (tenantId: string, name: string) =>
    (await dataSource.getRepository(DigitalStaffEntity).save({ tenantId, name, persona: 'You are a helpful assistant.', description: null, welcomeMessage: null, enabled: true })).id;
  const newScope = async (name: string, source: string, bearer = token, tenant = 'acme') =>
    (await api('post', `/api/${tenant}/console/variableScopes`, bearer).send({ name, source }).expect(200)).body.id as string;
  const newDefinition = async (scopeId: string, body: Record<string, unknown>) => (await api('post', `${C}/variableScopes/${scopeId}/definitions`).send(body).expect(200)).body.id as string;
  const setValue = async (body: Record<string, unknown>) => {
    const response = await api('post', `${C}/variables`).send(body).expect(200);
    return String(response.headers.location).split('/').pop()!;
  };

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_VARIABLE_MAX_SCOPES: '8', CHAT_VARIABLE_MAX_DEFINITIONS: '8', CHAT_VARIABLE_VALUE_MAX_BYTES: '256', CHAT_VARIABLE_LIST_MAX: '50' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    await newTenant(testApp, 'initech');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    reader = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    contactId = await newContact('acme', 'wm-customer-1');
    otherContactId = await newContact('globex', 'wm-customer-9');
    staffId = await newDigitalStaff('acme', 'Ava');
    otherStaffId = await newDigitalStaff('globex', 'Gus');
  });
  afterAll(() => testApp?.close());

  describe('scopes', () => {
    it('creates, reads, lists by source, replaces and deletes a scope', async () => {
      const created = await api('post', `${C}/variableScopes`).send({ name: 'Customer profile', source: 'contact', description: 'What we know' }).expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'Customer profile',
        source: 'contact',
        description: 'What we know',
        definitionCount: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${C}/variableScopes/${created.body.id}`).expect(200)).body).toEqual(created.body);
      await newScope('Shop settings', 'tenant');
      const contactScopes = await api('get', `${C}/variableScopes?source=contact`).expect(200);
      expect(contactScopes.body.map((scope: { name: string }) => scope.name)).toEqual(['Customer profile']);
      const replaced = await api('put', `${C}/variableScopes/${created.body.id}`).send({ name: 'Customer facts', source: 'contact' }).expect(200);
      expect(replaced.body).toMatchObject({ name: 'Customer facts', description: null, source: 'contact' });
      const deleted = await api('delete', `${C}/variableScopes/${created.body.id}`).expect(200);
      expect(deleted.body).toMatchObject({ id: created.body.id, name: 'Customer facts' });
      await api('get', `${C}/variableScopes/${created.body.id}`).expect(404);
    });

    it('requires a valid source on the list (400) and validates the body (400 with field errors)', async () => {
      const missing = await api('get', `${C}/variableScopes`).expect(400);
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'source' })]);
      await api('get', `${C}/variableScopes?source=global`).expect(400);
      const bad = await api('post', `${C}/variableScopes`).send({ name: ' padded', source: 'planet', extra: 1 }).expect(400);
      expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['extra', 'name', 'source']);
    });

    it('keeps names unique per source (409) but allows the same name for another source', async () => {
      const duplicate = await api('post', `${C}/variableScopes`).send({ name: 'Shop settings', source: 'tenant' }).expect(409);
      expect(duplicate.body.detail).toBe('The tenant already has a tenant variable scope named "Shop settings".');
      const staffScope = await newScope('Shop settings', 'digital_staff');
      await api('delete', `${C}/variableScopes/${staffScope}`).expect(200);
    });

    it('refuses more than CHAT_VARIABLE_MAX_SCOPES scopes per tenant (409)', async () => {
      const initech = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'initech' }))).access_token;
      for (let index = 0; index < 8; index += 1) await newScope(`s${index}`, index % 2 ? 'tenant' : 'contact', initech, 'initech');
      const over = await api('post', '/api/initech/console/variableScopes', initech).send({ name: 's8', source: 'tenant' }).expect(409);
      expect(over.body.detail).toBe('The tenant already has 8 variable scopes; at most 8 are allowed (CHAT_VARIABLE_MAX_SCOPES).');
    });
  });

  describe('definitions', () => {
    let scopeId: string;
    beforeAll(async () => {
      scopeId = await newScope('Definitions', 'contact');
    });

    it('creates typed definitions with matching defaults, and lists, reads and replaces them', async () => {
      const level = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'memberLevel', type: 'enum', options: ['gold', 'silver'], defaultValue: 'silver', description: 'CRM level' }).expect(200);
      expect(level.body).toEqual({
        id: expect.any(String),
        tenantId: 'acme',
        scopeId,
        name: 'memberLevel',
        type: 'enum',
        options: ['gold', 'silver'],
        defaultValue: 'silver',
        description: 'CRM level',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      for (const body of [
        { name: 'points', type: 'number', defaultValue: 0 },
        { name: 'vip', type: 'boolean', defaultValue: false },
        { name: 'birthday', type: 'date' },
        { name: 'preferences', type: 'json', defaultValue: { channel: 'chat' } },
        { name: '昵称', type: 'string', defaultValue: '' },
      ]) {
        const created = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send(body).expect(200);
        expect(created.body).toMatchObject({ ...body, defaultValue: 'defaultValue' in body ? body.defaultValue : null, options: null });
      }
      const list = await api('get', `${C}/variableScopes/${scopeId}/definitions`).expect(200);
      expect(list.body.map((definition: { name: string }) => definition.name)).toEqual(['birthday', 'memberLevel', 'points', 'preferences', 'vip', '昵称']);
      expect((await api('get', `${C}/variableScopes/${scopeId}`).expect(200)).body.definitionCount).toBe(6);
      expect((await api('get', `${C}/variableScopes/${scopeId}/definitions/${level.body.id}`).expect(200)).body).toEqual(level.body);
      const replaced = await api('put', `${C}/variableScopes/${scopeId}/definitions/${level.body.id}`).send({ name: 'memberLevel', type: 'enum', options: ['gold', 'silver', 'bronze'] }).expect(200);
      expect(replaced.body).toMatchObject({ options: ['gold', 'silver', 'bronze'], defaultValue: null, description: null });
    });

    it('refuses a default that does not match the type, and options that do not fit it (400 with reasons)', async () => {
      const mismatch = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'age', type: 'number', defaultValue: '42' }).expect(400);
      expect(mismatch.body.detail).toBe('Invalid variable definition: Variable "age" is of type number and expects a JSON number; got a string ("42").');
      expect(mismatch.body.errors).toEqual([{ field: 'defaultValue', messages: ['Variable "age" is of type number and expects a JSON number; got a string ("42").'] }]);
      const notInOptions = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'tier', type: 'enum', options: ['a'], defaultValue: 'b' }).expect(400);
      expect(notInOptions.body.errors[0].field).toBe('defaultValue');
      const noOptions = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'tier', type: 'enum' }).expect(400);
      expect(noOptions.body.errors).toEqual([{ field: 'options', messages: ['An enum variable needs at least one option.'] }]);
      const stray = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'tier', type: 'string', options: ['a'] }).expect(400);
      expect(stray.body.errors[0].field).toBe('options');
      await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'bad-name', type: 'string' }).expect(400);
      await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'x', type: 'money' }).expect(400);
      await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'badDate', type: 'date', defaultValue: '2026-02-30' }).expect(400);
    });

    it('keeps names unique in a scope (409), caps definitions per scope (409) and defaults by size (413)', async () => {
      const duplicate = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'points', type: 'string' }).expect(409);
      expect(duplicate.body.detail).toBe('The scope already has a variable named "points".');
      const big = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'blob', type: 'string', defaultValue: 'x'.repeat(300) }).expect(413);
      expect(big.body.detail).toBe('The default value is 302 bytes of JSON; at most 256 are allowed (CHAT_VARIABLE_VALUE_MAX_BYTES).');
      await newDefinition(scopeId, { name: 'seventh', type: 'string' });
      await newDefinition(scopeId, { name: 'eighth', type: 'string' });
      const over = await api('post', `${C}/variableScopes/${scopeId}/definitions`).send({ name: 'ninth', type: 'string' }).expect(409);
      expect(over.body.detail).toBe('The scope already has 8 variable definitions; at most 8 are allowed (CHAT_VARIABLE_MAX_DEFINITIONS).');
    });

    it('answers 404 for a definition read through another scope, and for unknown ones', async () => {
      const otherScope = await newScope('Elsewhere', 'tenant');
      const [first] = (await api('get', `${C}/variableScopes/${scopeId}/definitions`).expect(200)).body;
      await api('get', `${C}/variableScopes/${otherScope}/definitions/${first.id}`).expect(404);
      await api('get', `${C}/variableScopes/${scopeId}/definitions/00000000-0000-4000-8000-000000000000`).expect(404);
      await api('get', `${C}/variableScopes/00000000-0000-4000-8000-000000000000/definitions`).expect(404);
      await api('delete', `${C}/variableScopes/${otherScope}`).expect(200);
    });
  });

  describe('values', () => {
    let contactScope: string;
    let tenantScope: string;
    let levelId: string;
    let pointsId: string;
    let shopNameId: string;

    beforeAll(async () => {
      contactScope = await newScope('Values', 'contact');
      tenantScope = (await api('get', `${C}/variableScopes?source=tenant`).expect(200)).body.find((scope: { name: string }) => scope.name === 'Shop settings').id;
      levelId = await newDefinition(contactScope, { name: 'level', type: 'enum', options: ['gold', 'silver'] });
      pointsId = await newDefinition(contactScope, { name: 'score', type: 'number' });
      shopNameId = await newDefinition(tenantScope, { name: 'shopName', type: 'string' });
    });

    it('sets a value for a contact (200, no body, Location) and lists, changes and deletes it', async () => {
      const created = await api('post', `${C}/variables`).send({ definitionId: levelId, subjectId: contactId, value: 'gold' }).expect(200);
      expect(created.text).toBe('');
      const valueId = String(created.headers.location).match(/^\/api\/acme\/console\/variables\/([0-9a-f-]{36})$/)![1];
      const listed = await api('get', `${C}/variables?scopeId=${contactScope}`).expect(200);
      expect(listed.body).toEqual([
        { id: valueId, tenantId: 'acme', scopeId: contactScope, definitionId: levelId, name: 'level', type: 'enum', subjectId: contactId, value: 'gold', createdAt: expect.any(String), updatedAt: expect.any(String) },
      ]);
      const changed = await api('put', `${C}/variables/${valueId}`).send({ value: 'silver' }).expect(200);
      expect(changed.text).toBe('');
      expect((await api('get', `${C}/variables?scopeId=${contactScope}&subjectId=${contactId}`).expect(200)).body[0].value).toBe('silver');
      const deleted = await api('delete', `${C}/variables/${valueId}`).expect(200);
      expect(deleted.text).toBe('');
      await api('put', `${C}/variables/${valueId}`).send({ value: 'gold' }).expect(404);
      await api('delete', `${C}/variables/${valueId}`).expect(404);
    });

    it('refuses values that do not match the type, with the reason (400), on create and on change', async () => {
      const wrongEnum = await api('post', `${C}/variables`).send({ definitionId: levelId, subjectId: contactId, value: 'platinum' }).expect(400);
      expect(wrongEnum.body.detail).toBe('Variable "level" is of type enum and expects one of "gold", "silver"; got a string ("platinum").');
      expect(wrongEnum.body.errors).toEqual([{ field: 'value', messages: [wrongEnum.body.detail] }]);
      const numeric = await api('post', `${C}/variables`).send({ definitionId: pointsId, subjectId: contactId, value: '12' }).expect(400);
      expect(numeric.body.detail).toBe('Variable "score" is of type number and expects a JSON number; got a string ("12").');
      const nullValue = await api('post', `${C}/variables`).send({ definitionId: pointsId, subjectId: contactId, value: null }).expect(400);
      expect(nullValue.body.errors).toEqual([expect.objectContaining({ field: 'value' })]);
      const valueId = await setValue({ scopeId: contactScope, name: 'score', subjectId: contactId, value: 12 });
      const change = await api('put', `${C}/variables/${valueId}`).send({ value: true }).expect(400);
      expect(change.body.detail).toBe('Variable "score" is of type number and expects a JSON number; got a boolean (true).');
      expect(await dataSource.query('SELECT value FROM chat_variable_value WHERE id = $1', [valueId])).toEqual([{ value: 12 }]);
      const tooBig = await api('post', `${C}/variables`).send({ definitionId: shopNameId, value: 'y'.repeat(400) }).expect(413);
      expect(tooBig.body.detail).toBe('The value is 402 bytes of JSON; at most 256 are allowed (CHAT_VARIABLE_VALUE_MAX_BYTES).');
    });

    it('checks the subject against the scope\'s source: none for tenant, an existing contact or digital staff otherwise', async () => {
      const tenantWithSubject = await api('post', `${C}/variables`).send({ definitionId: shopNameId, subjectId: contactId, value: 'Acme' }).expect(400);
      expect(tenantWithSubject.body.detail).toBe('Values of a tenant scope are global: leave subjectId out.');
      const contactWithout = await api('post', `${C}/variables`).send({ definitionId: levelId, value: 'gold' }).expect(400);
      expect(contactWithout.body.detail).toBe('Values of a contact scope need a subjectId: an external contact id.');
      const unknownContact = await api('post', `${C}/variables`).send({ definitionId: levelId, subjectId: '00000000-0000-4000-8000-000000000000', value: 'gold' }).expect(404);
      expect(unknownContact.body.detail).toBe('No contact 00000000-0000-4000-8000-000000000000 in this tenant.');
      await api('post', `${C}/variables`).send({ definitionId: levelId, subjectId: otherContactId, value: 'gold' }).expect(404);
      await api('post', `${C}/variables`).send({ definitionId: levelId, subjectId: 'not-a-uuid', value: 'gold' }).expect(400);
      const noVariable = await api('post', `${C}/variables`).send({ subjectId: contactId, value: 'gold' }).expect(400);
      expect(noVariable.body.detail).toBe('Name the variable by definitionId, or by scopeId and name.');
      const wrongScope = await api('post', `${C}/variables`).send({ definitionId: levelId, scopeId: tenantScope, subjectId: contactId, value: 'gold' }).expect(400);
      expect(wrongScope.body.errors[0].field).toBe('scopeId');
      await api('post', `${C}/variables`).send({ scopeId: contactScope, name: 'nope', subjectId: contactId, value: 'x' }).expect(404);
      const tenantValue = await setValue({ definitionId: shopNameId, value: 'Acme Store' });
      const listed = await api('get', `${C}/variables?scopeId=${tenantScope}`).expect(200);
      expect(listed.body).toEqual([expect.objectContaining({ id: tenantValue, subjectId: null, value: 'Acme Store', name: 'shopName' })]);
    });

    it('keeps one value per variable and subject (409 naming the existing value)', async () => {
      const first = await setValue({ definitionId: levelId, subjectId: contactId, value: 'gold' });
      const second = await api('post', `${C}/variables`).send({ definitionId: levelId, subjectId: contactId, value: 'silver' }).expect(409);
      expect(second.body).toMatchObject({ detail: 'This subject already has a value for variable "level"; change it with PUT /variables/{id}.', valueId: first });
    });

    it('requires scopeId on the list (400) and caps it with limit (400 above CHAT_VARIABLE_LIST_MAX)', async () => {
      const missing = await api('get', `${C}/variables`).expect(400);
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'scopeId' })]);
      await api('get', `${C}/variables?scopeId=00000000-0000-4000-8000-000000000000`).expect(404);
      const over = await api('get', `${C}/variables?scopeId=${contactScope}&limit=51`).expect(400);
      expect(over.body.detail).toMatch(/^limit is 51; at most 50 values are listed at once \(CHAT_VARIABLE_LIST_MAX\)/);
      const one = await api('get', `${C}/variables?scopeId=${contactScope}&limit=1`).expect(200);
      expect(one.body).toHaveLength(1);
      const byDefinition = await api('get', `${C}/variables?scopeId=${contactScope}&definitionId=${levelId}`).expect(200);
      expect(byDefinition.body.map((value: { name: string }) => value.name)).toEqual(['level']);
    });

    it('refuses definition changes that existing values would not match (409)', async () => {
      const typeChange = await api('put', `${C}/variableScopes/${contactScope}/definitions/${levelId}`).send({ name: 'level', type: 'string' }).expect(409);
      expect(typeChange.body.detail).toBe('Variable "level" has 1 values of type enum; delete them before changing its type to string.');
      const dropUsed = await api('put', `${C}/variableScopes/${contactScope}/definitions/${levelId}`).send({ name: 'level', type: 'enum', options: ['silver'] }).expect(409);
      expect(dropUsed.body.detail).toBe('Variable "level" has 1 values that are not among the new options; change or delete them first.');
      await api('put', `${C}/variableScopes/${contactScope}/definitions/${levelId}`).send({ name: 'level', type: 'enum', options: ['gold', 'silver', 'bronze'] }).expect(200);
      const sourceChange = await api('put', `${C}/variableScopes/${contactScope}`).send({ name: 'Values', source: 'tenant' }).expect(409);
      expect(sourceChange.body.detail).toMatch(/^Scope "Values" has \d+ values for contact subjects; delete them before changing its source to tenant\.$/);
    });

    it('deletes a definition with values or a scope with definitions only when recursive (409 otherwise), in one go', async () => {
      const scope = await newScope('Disposable', 'contact');
      const definition = await newDefinition(scope, { name: 'temp', type: 'string' });
      await setValue({ definitionId: definition, subjectId: contactId, value: 'x' });
      const withValues = await api('delete', `${C}/variableScopes/${scope}/definitions/${definition}`).expect(409);
      expect(withValues.body.detail).toBe('Variable "temp" has 1 values; delete them first, or delete with ?recursive=true to remove them too.');
      const withDefinitions = await api('delete', `${C}/variableScopes/${scope}`).expect(409);
      expect(withDefinitions.body.detail).toBe('Scope "Disposable" has 1 variable definitions; delete them first, or delete with ?recursive=true to remove them and their values too.');
      await api('delete', `${C}/variableScopes/${scope}?recursive=maybe`).expect(400);
      const deleted = await api('delete', `${C}/variableScopes/${scope}?recursive=true`).expect(200);
      expect(deleted.body).toMatchObject({ id: scope, definitionCount: 1 });
      const left = await dataSource.query('SELECT (SELECT count(*) FROM chat_variable_definition WHERE scope_id = $1)::int AS definitions, (SELECT count(*) FROM chat_variable_value WHERE scope_id = $1)::int AS "values"', [scope]);
      expect(left).toEqual([{ definitions: 0, values: 0 }]);
      const keep = await newScope('Disposable', 'contact');
      const keepDefinition = await newDefinition(keep, { name: 'temp', type: 'string' });
      await setValue({ definitionId: keepDefinition, subjectId: contactId, value: 'x' });
      const removed = await api('delete', `${C}/variableScopes/${keep}/definitions/${keepDefinition}?recursive=true`).expect(200);
      expect(removed.body).toMatchObject({ id: keepDefinition, name: 'temp' });
      expect(await dataSource.query('SELECT count(*)::int AS n FROM chat_variable_value WHERE definition_id = $1', [keepDefinition])).toEqual([{ n: 0 }]);
      await api('delete', `${C}/variableScopes/${keep}`).expect(200);
    });
  });

  describe('what a contact sees', () => {
    it('merges tenant, digital staff and contact variables, most specific first, with defaults filling gaps', async () => {
      const tenantScope = await newScope('Layered', 'tenant', token);
      const staffScope = await newScope('Layered', 'digital_staff');
      const contactScope = await newScope('Layered', 'contact');
      const greetingTenant = await newDefinition(tenantScope, { name: 'greeting', type: 'string' });
      await newDefinition(tenantScope, { name: 'hotline', type: 'string', defaultValue: '400-800' });
      await newDefinition(tenantScope, { name: 'unsetNoDefault', type: 'string' });
      const greetingStaff = await newDefinition(staffScope, { name: 'greeting', type: 'string' });
      const signature = await newDefinition(staffScope, { name: 'signature', type: 'string', defaultValue: 'The team' });
      const greetingContact = await newDefinition(contactScope, { name: 'greeting', type: 'string', defaultValue: 'Hi there' });
      const nickname = await newDefinition(contactScope, { name: 'nickname', type: 'string' });
      await setValue({ definitionId: greetingTenant, value: 'Hello from Acme' });
      await setValue({ definitionId: greetingStaff, subjectId: staffId, value: 'Hello from Ava' });
      await setValue({ definitionId: signature, subjectId: staffId, value: 'Ava' });
      await setValue({ definitionId: nickname, subjectId: contactId, value: 'Annie' });
      const foreignStaff = await api('post', `${C}/variables`).send({ definitionId: signature, subjectId: otherStaffId, value: 'Gus' }).expect(404);
      expect(foreignStaff.body.detail).toBe(`No digital staff ${otherStaffId} in this tenant.`);

      // The contact's staff user is bound to Ava: her variables apply without naming her.
      await dataSource.getRepository(WorkChatUserEntity).save({ tenantId: 'acme', corpId: CORP_ID, workChatUserId: 'alice', name: 'Alice', digitalStaffId: staffId });
      const resolved = await api('get', `${C}/variables/resolve?contactId=${contactId}`).expect(200);
      const byName = Object.fromEntries(resolved.body.variables.map((variable: { name: string }) => [variable.name, variable]));
      expect(resolved.body.digitalStaffId).toBe(staffId);
      // A contact-scope default beats the digital staff's and the tenant's set values (most specific source wins).
      expect(byName.greeting).toEqual({ name: 'greeting', type: 'string', value: 'Hi there', source: 'contact', scopeId: contactScope, definitionId: greetingContact, fromDefault: true });
      expect(byName.signature).toMatchObject({ value: 'Ava', source: 'digital_staff', fromDefault: false });
      expect(byName.hotline).toMatchObject({ value: '400-800', source: 'tenant', fromDefault: true });
      expect(byName.nickname).toMatchObject({ value: 'Annie', source: 'contact' });
      expect(byName.unsetNoDefault).toBeUndefined();

      // The reply pipeline's read: the same through the service, rendered into a script.
      const service = testApp.app.get(VariablesService);
      const withoutStaff = await service.resolveForContact('acme', contactId, null);
      expect(withoutStaff.variables.find((variable) => variable.name === 'signature')).toBeUndefined();
      const forContact = await service.resolveForContact('acme', contactId);
      expect(renderTemplate('{{greeting}} {{nickname}}! Call {{hotline}}. — {{signature}} {{unknown}}', variablesByName(forContact.variables))).toBe('Hi there Annie! Call 400-800. — Ava {{unknown}}');

      // Naming another digital staff switches the layer; an unknown one is 404.
      const other = await newDigitalStaff('acme', 'Bob');
      const asBob = await api('get', `${C}/variables/resolve?contactId=${contactId}&digitalStaffId=${other}`).expect(200);
      expect(asBob.body.variables.find((variable: { name: string }) => variable.name === 'signature')).toMatchObject({ value: 'The team', fromDefault: true });
      await api('get', `${C}/variables/resolve?contactId=${contactId}&digitalStaffId=${otherStaffId}`).expect(404);
      await api('get', `${C}/variables/resolve?contactId=${otherContactId}`).expect(404);
      await api('get', `${C}/variables/resolve`).expect(400);
    });
  });

  describe('tenant isolation and scopes of the token', () => {
    it('answers 403 for another tenant\'s paths and 404 for its ids', async () => {
      const foreignScope = await newScope('Foreign', 'contact', otherToken, 'globex');
      const foreignDefinition = (await api('post', `/api/globex/console/variableScopes/${foreignScope}/definitions`, otherToken).send({ name: 'x', type: 'string' }).expect(200)).body.id;
      await api('post', '/api/globex/console/variables', otherToken).send({ definitionId: foreignDefinition, subjectId: otherContactId, value: 'v' }).expect(200);
      const foreignValue = (await api('get', `/api/globex/console/variables?scopeId=${foreignScope}`, otherToken).expect(200)).body[0].id;

      const forbidden = await api('get', `/api/globex/console/variableScopes?source=contact`).expect(403);
      expect(forbidden.body.detail).toBe('The access token is not valid for tenant "globex" (it is for: acme).');
      await api('post', '/api/globex/console/variableScopes').send({ name: 'x', source: 'tenant' }).expect(403);
      await api('get', `/api/globex/console/variables?scopeId=${foreignScope}`).expect(403);

      await api('get', `${C}/variableScopes/${foreignScope}`).expect(404);
      await api('put', `${C}/variableScopes/${foreignScope}`).send({ name: 'Mine', source: 'contact' }).expect(404);
      await api('delete', `${C}/variableScopes/${foreignScope}?recursive=true`).expect(404);
      await api('get', `${C}/variableScopes/${foreignScope}/definitions`).expect(404);
      await api('get', `${C}/variableScopes/${foreignScope}/definitions/${foreignDefinition}`).expect(404);
      await api('get', `${C}/variables?scopeId=${foreignScope}`).expect(404);
      await api('post', `${C}/variables`).send({ definitionId: foreignDefinition, subjectId: contactId, value: 'v' }).expect(404);
      await api('put', `${C}/variables/${foreignValue}`).send({ value: 'mine' }).expect(404);
      await api('delete', `${C}/variables/${foreignValue}`).expect(404);
      expect((await api('get', `/api/globex/console/variables?scopeId=${foreignScope}`, otherToken).expect(200)).body[0].value).toBe('v');
      expect((await api('get', `/api/globex/console/variableScopes?source=contact`, otherToken).expect(200)).body.map((scope: { name: string }) => scope.name)).toEqual(['Foreign']);
    });

    it('answers 403 to writes without chat:write, and serves reads', async () => {
      const scopeId = (await api('get', `${C}/variableScopes?source=tenant`, reader).expect(200)).body[0].id;
      for (const [method, path, body] of [
        ['post', `${C}/variableScopes`, { name: 'x', source: 'tenant' }],
        ['put', `${C}/variableScopes/${scopeId}`, { name: 'x', source: 'tenant' }],
        ['delete', `${C}/variableScopes/${scopeId}`, undefined],
        ['post', `${C}/variableScopes/${scopeId}/definitions`, { name: 'x', type: 'string' }],
        ['post', `${C}/variables`, { scopeId, name: 'shopName', value: 'x' }],
        ['delete', `${C}/variables/${scopeId}`, undefined],
      ] as const) {
        const response = await api(method, path, reader).send(body);
        expect([method, path, response.status]).toEqual([method, path, 403]);
        expect(response.body.detail).toMatch(/operations need the chat:write scope, which the token lacks\.$/);
      }
      await api('get', `${C}/variableScopes/${scopeId}/definitions`, reader).expect(200);
    });
  });
});
