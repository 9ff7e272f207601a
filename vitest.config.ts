import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // End-to-end tests spawn the built CLI and real git; give slow CI machines room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
