import {
  contactWayBody,
  groupWayBody,
  parseWireReply,
  toExternalContactsOfStaff,
  toPlatformContactWay,
  toPlatformFollow,
  toPlatformGroupChat,
  toPlatformStaffList,
  toPlatformTagGroup,
  WireFormatError,
} from './platform-wire';

describe('platform wire format', () => {
  it('parses replies: errcode required to be a number, absent counts as success', () => {
    expect(parseWireReply('{"errcode":0,"errmsg":"ok","config_id":"c"}')).toEqual({ errcode: 0, errmsg: 'ok', config_id: 'c' });
    expect(parseWireReply('{"media_id":"m"}')).toEqual({ media_id: 'm', errcode: 0 });
    expect(() => parseWireReply('<html>')).toThrow(new WireFormatError('reply is not JSON'));
    expect(() => parseWireReply('[1]')).toThrow('reply is not a JSON object');
    expect(() => parseWireReply('{"errcode":"0"}')).toThrow('errcode is not a number');
  });

  it('builds contact way bodies with the platform member names; skip_verify defaults to true on create', () => {
    expect(contactWayBody({ type: 1, scene: 2, userIds: ['zhangsan'], state: 'ch1', remark: 'r' })).toEqual({ type: 1, scene: 2, skip_verify: true, state: 'ch1', remark: 'r', user: ['zhangsan'] });
    expect(contactWayBody({ state: 's2' })).toEqual({ state: 's2' });
    expect(contactWayBody({ skipVerify: false, departmentIds: [2], style: 1 })).toEqual({ skip_verify: false, party: [2], style: 1 });
  });

  it('reads a contact way', () => {
    const way = toPlatformContactWay({ errcode: 0, contact_way: { config_id: 'c1', type: 2, scene: 2, qr_code: 'https://q/1', user: ['a', 'b'], party: [3], skip_verify: false, state: 's' } });
    expect(way).toEqual({ configId: 'c1', type: 2, scene: 2, qrCode: 'https://q/1', userIds: ['a', 'b'], departmentIds: [3], skipVerify: false, state: 's', remark: undefined });
    expect(() => toPlatformContactWay({ errcode: 0 })).toThrow('contact_way is not an object');
  });

  it('builds group way bodies', () => {
    expect(groupWayBody({ scene: 2, chatIds: ['wr1'], autoCreateRoom: true, roomBaseName: 'VIP', roomBaseId: 1 })).toEqual({ scene: 2, chat_id_list: ['wr1'], auto_create_room: 1, room_base_name: 'VIP', room_base_id: 1 });
  });

  it('reads staff, falling back on the user id for a missing name and on active for an unknown status', () => {
    expect(toPlatformStaffList({ errcode: 0, userlist: [{ userid: 'a', name: 'A', department: [1, 2], mobile: '138', status: 5 }, { userid: 'b', status: 9 }] })).toEqual([
      { userId: 'a', name: 'A', mobile: '138', departmentIds: [1, 2], status: 5 },
      { userId: 'b', name: 'b', mobile: undefined, departmentIds: [], status: 1 },
    ]);
    expect(() => toPlatformStaffList({ errcode: 0, userlist: [{ name: 'no id' }] })).toThrow('userid is missing');
  });

  it('reads followers in both shapes: tags with names (get) and tag ids only (batch)', () => {
    expect(toPlatformFollow({ userid: 'a', createtime: 10, tags: [{ tag_id: 't1', tag_name: 'VIP', group_name: 'Level', type: 1 }, { tag_name: 'mine', type: 2 }], remark_mobiles: ['1'], add_way: 1, state: 's' })).toEqual({
      userId: 'a',
      remark: undefined,
      description: undefined,
      remarkMobiles: ['1'],
      createdAt: new Date(10_000),
      state: 's',
      addWay: 1,
      tags: [
        { tagId: 't1', tagName: 'VIP', groupName: 'Level', type: 1 },
        { tagId: undefined, tagName: 'mine', groupName: undefined, type: 2 },
      ],
    });
    const [row] = toExternalContactsOfStaff({ errcode: 0, external_contact_list: [{ external_contact: { external_userid: 'wm1', name: 'Li', type: 1, gender: 2 }, follow_info: { userid: 'a', tag_id: ['t1'], createtime: 1 } }] });
    expect(row.contact).toEqual({ externalUserId: 'wm1', name: 'Li', type: 1, gender: 2, avatarUrl: undefined, unionId: undefined, corpName: undefined });
    expect(row.follow.tags).toEqual([{ tagId: 't1', type: 1 }]);
  });

  it('reads a group chat and a tag group, leaving deleted tags out', () => {
    const chat = toPlatformGroupChat({ errcode: 0, group_chat: { chat_id: 'wr1', name: 'G', owner: 'a', create_time: 5, member_list: [{ userid: 'wm1', type: 2, join_time: 6, join_scene: 3, group_nickname: 'Nick' }], admin_list: [{ userid: 'b' }] } });
    expect(chat.members).toEqual([{ userId: 'wm1', type: 2, joinedAt: new Date(6_000), joinScene: 3, name: 'Nick' }]);
    expect([chat.ownerUserId, chat.adminUserIds, chat.createdAt]).toEqual(['a', ['b'], new Date(5_000)]);
    const group = toPlatformTagGroup({ group_id: 'g', group_name: 'Level', order: 1, create_time: 0, tag: [{ id: 't1', name: 'VIP', order: 2 }, { id: 't2', name: 'old', deleted: true }] });
    expect(group.tags.map((tag) => tag.tagId)).toEqual(['t1']);
  });
});
