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
export * from "./runEvents.js";
export * from "./queueIndex.js";
export * from "./heartbeat.js";
export * from "./scheduler.js";
export * from "./jobs.js";
