// Examples of the share schemas (README "Share links"), part of the OpenAPI document's COMPONENT_EXAMPLES;
// Redocly's lint validates each against its schema.

const AUDIT_ID = 'aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z';
const share = {
  share_id: 'shr_7Kq2mX9vB4nR8cT1yW6z',
  audit_id: AUDIT_ID,
  expires_at: '2026-12-20T09:00:00.000Z',
  status: 'active',
  password_protected: true,
  created_at: '2026-11-20T09:00:00.000Z',
};

/** Examples of the share schemas, part of the document's COMPONENT_EXAMPLES. */
export const SHARE_EXAMPLES: Record<string, unknown> = {
  CreateShareRequest: { expires_in_days: 30, password: 'violet-harbour-lantern' },
  Share: share,
  CreatedShare: {
    ...share,
    url: 'https://audits.example.net/share/q8Zt3vN1xK5mB7cR2wY9pL4sH6dF0gJ1aE3uT5iO7kM',
  },
  ShareList: { data: [share] },
};
