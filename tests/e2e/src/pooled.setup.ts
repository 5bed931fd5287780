// Read by testkit's startService (see jest.pooled.config.js).
process.env.TEST_DATABASE_POOLING = "transaction";
