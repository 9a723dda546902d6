import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validate } from 'class-validator';
import type * as z from 'zod';
import { AddCustomerTagRequest, DeleteCustomerTagRequest, SendGroupMessageRequest, SendMessageRequest } from './chat-tools.dto';
import { ADD_CUSTOMER_TAGS_INPUT, DELETE_CUSTOMER_TAGS_INPUT, SEND_GROUP_MESSAGE_INPUT, SEND_MESSAGE_INPUT } from './chat-tools.schemas';

/**
 * The MCP tools' zod schemas mirror the REST DTOs: the same input is accepted or refused by both (the REST side
 * validated as the app's ValidationPipe does: whitelist + forbidNonWhitelisted).
 */
const UUID = '6f1c2a52-8a47-4c5e-9d0e-3f3b7e0c9a11';

async function restAccepts(dto: ClassConstructor<object>, body: Record<string, unknown>): Promise<boolean> {
  const errors = await validate(plainToInstance(dto, body), { whitelist: true, forbidNonWhitelisted: true });
  return errors.length === 0;
}

function mcpAccepts(schema: z.ZodType, body: Record<string, unknown>): boolean {
  return schema.safeParse(body).success;
}

const sendCases: [string, Record<string, unknown>, boolean][] = [
  ['contact id and text', { contactId: UUID, content: 'Hello' }, true],
  ['staff member and customer', { workChatUserId: 'zhangsan', externalUserId: 'wm123', content: 'Hello', quoteChatMsgId: UUID, agentChatId: 'run-1' }, true],
  ['no content', { contactId: UUID }, false],
  ['blank content', { contactId: UUID, content: '  \n' }, false],
  ['content over the hard cap', { contactId: UUID, content: 'x'.repeat(64 * 1024 + 1) }, false],
  ['content a number', { contactId: UUID, content: 5 }, false],
  ['contact id not a uuid', { contactId: 'abc', content: 'Hello' }, false],
  ['staff id with a space', { workChatUserId: 'zhang san', externalUserId: 'wm1', content: 'Hello' }, false],
  ['staff id too long', { workChatUserId: 'z'.repeat(65), externalUserId: 'wm1', content: 'Hello' }, false],
  ['quote not a uuid', { contactId: UUID, content: 'Hello', quoteChatMsgId: 'm1' }, false],
  ['agent chat id too long', { contactId: UUID, content: 'Hello', agentChatId: 'a'.repeat(129) }, false],
  ['unknown key', { contactId: UUID, content: 'Hello', msgType: 'text' }, false],
];

const groupCases: [string, Record<string, unknown>, boolean][] = [
  ['room and text', { roomId: UUID, content: 'Hello all' }, true],
  ['room, sender and quote', { roomId: UUID, workChatUserId: 'lisi', content: 'Hello all', quoteChatMsgId: UUID }, true],
  ['no room', { content: 'Hello all' }, false],
  ['room not a uuid', { roomId: 'wrXXXX', content: 'Hello all' }, false],
  ['blank content', { roomId: UUID, content: '' }, false],
  ['unknown key', { roomId: UUID, content: 'Hello all', contactId: UUID }, false],
];

const tagCases: [string, Record<string, unknown>, boolean][] = [
  ['contact id and tag ids', { contactId: UUID, tagIds: ['etAbc_1-2'] }, true],
  ['customer and names in a group', { workChatUserId: 'zhangsan', externalUserId: 'wm1', tagNames: ['VIP', 'Big spender'], groupName: 'Level' }, true],
  ['no tags at all (a service rule, not a schema rule)', { contactId: UUID }, true],
  ['tag id with a dot', { contactId: UUID, tagIds: ['et.1'] }, false],
  ['tag ids not an array', { contactId: UUID, tagIds: 'et1' }, false],
  ['tag name with a leading space', { contactId: UUID, tagNames: [' VIP'] }, false],
  ['tag name too long', { contactId: UUID, tagNames: ['x'.repeat(65)] }, false],
  ['empty tag name', { contactId: UUID, tagNames: [''] }, false],
  ['too many tag ids for the hard cap', { contactId: UUID, tagIds: Array.from({ length: 201 }, (_, i) => `t${i}`) }, false],
  ['blank group name', { contactId: UUID, tagNames: ['VIP'], groupName: ' ' }, false],
  ['unknown key', { contactId: UUID, tagIds: ['t1'], tags: ['t1'] }, false],
];

describe('MCP tool input schemas mirror the REST DTOs', () => {
  it.each(sendCases)('send_message / SendMessageRequest: %s', async (_name, body, accepted) => {
    expect([await restAccepts(SendMessageRequest, body), mcpAccepts(SEND_MESSAGE_INPUT, body)]).toEqual([accepted, accepted]);
  });

  it.each(groupCases)('send_group_message / SendGroupMessageRequest: %s', async (_name, body, accepted) => {
    expect([await restAccepts(SendGroupMessageRequest, body), mcpAccepts(SEND_GROUP_MESSAGE_INPUT, body)]).toEqual([accepted, accepted]);
  });

  it.each(tagCases)('add_customer_tags / AddCustomerTagRequest and delete_customer_tags / DeleteCustomerTagRequest: %s', async (_name, body, accepted) => {
    expect([await restAccepts(AddCustomerTagRequest, body), mcpAccepts(ADD_CUSTOMER_TAGS_INPUT, body)]).toEqual([accepted, accepted]);
    expect([await restAccepts(DeleteCustomerTagRequest, body), mcpAccepts(DELETE_CUSTOMER_TAGS_INPUT, body)]).toEqual([accepted, accepted]);
  });

  it('declares the same fields on both sides', () => {
    const restFields = (dto: ClassConstructor<object>) => [...new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).map((meta) => meta.propertyName))].sort();
    const mcpFields = (schema: z.ZodObject) => Object.keys(schema.shape).sort();
    expect(mcpFields(SEND_MESSAGE_INPUT)).toEqual(['agentChatId', 'contactId', 'content', 'externalUserId', 'quoteChatMsgId', 'workChatUserId']);
    expect(restFields(SendMessageRequest)).toEqual(mcpFields(SEND_MESSAGE_INPUT));
    expect(restFields(SendGroupMessageRequest)).toEqual(mcpFields(SEND_GROUP_MESSAGE_INPUT));
    expect(restFields(AddCustomerTagRequest)).toEqual(mcpFields(ADD_CUSTOMER_TAGS_INPUT));
    expect(restFields(DeleteCustomerTagRequest)).toEqual(mcpFields(DELETE_CUSTOMER_TAGS_INPUT));
  });
});
