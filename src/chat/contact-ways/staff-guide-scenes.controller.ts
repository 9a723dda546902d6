import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { PLATFORM_FAILURE_RESPONSE } from './chat-contact-ways.controller';
import { SceneCodeDefaultDto, toContactWayDto } from './contact-way.dto';
import { ContactWaysService, type ContactWayWrite } from './contact-ways.service';
import { AddStaffAdvancedConsoleRequest, AddStaffSceneConsoleRequest, ResponseObject, SetDefaultSceneRequest } from './staff-guide.dto';

/** Longest staff name kept in a generated way name (the way name is at most 100 characters). */
const GENERATED_NAME_STAFF_CHARS = 90;

/**
 * The staff-user guide's scene code operations (chat-management-api.md, Console endpoints:
 * `{C}/workChat/user/guide/setDefaultScene|addStaffScene|addStaffAdvanced`): create a contact way for staff users
 * through the chat platform, and set a staff user's default scene code. The guide's other operations (syncGroup,
 * syncCustomer, bindDigitalStaff) live with the staff users.
 */
@ApiTags('chat: contact ways')
@Controller('api/:tenant/console/workChat/user/guide')
@ChatAuth()
export class StaffGuideScenesController {
  constructor(private readonly contactWays: ContactWaysService) {}

  @Post('setDefaultScene')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'setDefaultScene',
    summary: 'Set a staff user\'s default scene code',
    description: 'The contact way must belong to the staff user\'s corp and list the staff user. It becomes the default of its scope (its digital staff, else the staff user) and the previous default of that scope stops being one.',
  })
  @ApiOkResponse({ description: 'Done (no body).' })
  @ApiBadRequestResponse({ description: 'Invalid fields, a way of another corp, or a way not listing the staff user.' })
  @ApiConflictResponse({ description: 'The way is hidden, or has several staff users and no digital staff.' })
  async setDefaultScene(@CurrentTenant() tenantId: string, @Body() body: SetDefaultSceneRequest): Promise<void> {
    await this.contactWays.setStaffDefaultScene(tenantId, { ...body, contactWayId: String(body.contactWayId) });
  }

  @Post('addStaffScene')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'addStaffScene',
    summary: 'Create a QR code for a staff user',
    description: 'Creates a single-staff QR code contact way for the staff user on the chat platform, with the staff user\'s bound digital staff (if any); with setDefault=true it also becomes the default of its scope.',
  })
  @ApiOkResponse({ type: ResponseObject })
  @ApiBadRequestResponse({ description: 'Invalid fields, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE_RESPONSE
  async addStaffScene(@CurrentTenant() tenantId: string, @Body() body: AddStaffSceneConsoleRequest): Promise<ResponseObject> {
    const bound = await this.contactWays.boundDigitalStaff(tenantId, body.corpName, body.workChatUserId);
    return this.createScene(tenantId, body.setDefault === true, {
      corpName: body.corpName,
      name: body.name ?? `${bound.staffName.slice(0, GENERATED_NAME_STAFF_CHARS)} QR code`,
      workChatUserIds: [body.workChatUserId],
      type: 1,
      scene: 2,
      state: body.state,
      remark: body.remark,
      skipVerify: body.skipVerify,
      digitalStaffId: bound.digitalStaffId,
    });
  }

  @Post('addStaffAdvanced')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'addStaffAdvanced',
    summary: 'Create a contact way for staff users with every option',
    description: 'Several staff users, type, scene, digital staff (default: the one bound to a single staff user), channel and relevance code; with setDefault=true it also becomes the default of its scope.',
  })
  @ApiOkResponse({ type: ResponseObject })
  @ApiBadRequestResponse({ description: 'Invalid fields, type 1 with several staff users, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, the corp is disabled, or setDefault on a way without a default scope.' })
  @PLATFORM_FAILURE_RESPONSE
  async addStaffAdvanced(@CurrentTenant() tenantId: string, @Body() body: AddStaffAdvancedConsoleRequest): Promise<ResponseObject> {
    const { setDefault, ...write } = body;
    let digitalStaffId = write.digitalStaffId ?? null;
    if (!digitalStaffId && write.workChatUserIds.length === 1) digitalStaffId = (await this.contactWays.boundDigitalStaff(tenantId, write.corpName, write.workChatUserIds[0])).digitalStaffId;
    return this.createScene(tenantId, setDefault === true, { ...write, digitalStaffId });
  }

  /** Creates the way, optionally makes it the default, and wraps the result. */
  private async createScene(tenantId: string, makeDefault: boolean, write: ContactWayWrite): Promise<ResponseObject> {
    let row = await this.contactWays.create(tenantId, write);
    let defaults: SceneCodeDefaultDto[] = [];
    if (makeDefault) {
      defaults = await this.contactWays.setDefault(tenantId, row.id);
      row = await this.contactWays.get(tenantId, row.id);
    }
    const [view] = await this.contactWays.views(tenantId, [row]);
    const who = row.workChatUserIds.join(', ');
    return {
      success: true,
      code: makeDefault ? 'CREATED_DEFAULT' : 'CREATED',
      message: makeDefault ? `Contact way ${row.id} created for ${who} and made the default of its scope.` : `Contact way ${row.id} created for ${who}.`,
      data: toContactWayDto(view),
      defaults,
    };
  }
}
