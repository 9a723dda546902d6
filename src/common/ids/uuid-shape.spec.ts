import { isUuidShaped } from './uuid-shape';

describe('isUuidShaped', () => {
  it('takes any 8-4-4-4-12 hex text in either case, whatever its version digit', () => {
    for (const value of ['00000000-0000-0000-0000-000000000000', '6f1c2d3e-4a5b-9c7d-8e9f-0a1b2c3d4e5f', 'AAAAAAAA-bbbb-cccc-dddd-eeeeeeeeeeee']) expect({ value, ok: isUuidShaped(value) }).toEqual({ value, ok: true });
  });

  it('refuses other texts and non-strings', () => {
    for (const value of ['', 'xyz', '6f1c2d3e4a5b4c7d8e9f0a1b2c3d4e5f', '6f1c2d3e-4a5b-4c7d-8e9f-0a1b2c3d4e5', ' 6f1c2d3e-4a5b-4c7d-8e9f-0a1b2c3d4e5f', 42, null, undefined]) {
      expect({ value, ok: isUuidShaped(value) }).toEqual({ value, ok: false });
    }
  });
});
