import { SimContactWayEntity } from './sim-contact-way.entity';
import { SimExternalContactEntity } from './sim-external-contact.entity';
import { SimFollowEntity } from './sim-follow.entity';
import { SimGroupChatEntity } from './sim-group-chat.entity';
import { SimMessageEntity } from './sim-message.entity';
import { SimStaffEntity } from './sim-staff.entity';
import { SimTagEntity } from './sim-tag.entity';

/** Every table of the chat platform simulator (`chat_sim_*`, migration 1795313600000-ChatPlatformSimulator). */
export const CHAT_SIMULATOR_ENTITIES = [SimStaffEntity, SimContactWayEntity, SimExternalContactEntity, SimFollowEntity, SimGroupChatEntity, SimTagEntity, SimMessageEntity];
