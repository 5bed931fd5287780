export {
  createRedis,
  duplicateAs,
  pingRedis,
  redisRefusal,
  whenRedisReady,
  type RedisClient,
  type RedisRole,
  type RedisSettings,
} from "./redis.js";
export * from "./queues.js";
export * from "./runEvents/index.js";
export * from "./queueIndex.js";
export * from "./heartbeat.js";
export * from "./scheduler/index.js";
export * from "./jobs.js";
export * from "./handoff.js";
