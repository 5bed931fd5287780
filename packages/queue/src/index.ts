export { createRedis, pingRedis, whenRedisReady, type RedisRole } from "./redis.js";
