// The ide/contextUpdate notification as the CLIs validate it and the official companions parse it
// before sending. A function of the caller's own zod, so that each package uses the one it pins.
export function ideContextNotificationSchema(z) {
  return z.object({
    jsonrpc: z.literal('2.0'),
    method: z.literal('ide/contextUpdate'),
    params: z.object({
      workspaceState: z
        .object({
          openFiles: z.array(
            z.object({
              path: z.string(),
              timestamp: z.number(),
              isActive: z.boolean().optional(),
              selectedText: z.string().optional(),
              cursor: z.object({ line: z.number(), character: z.number() }).optional(),
            }),
          ),
          isTrusted: z.boolean().optional(),
        })
        .optional(),
    }),
  });
}
