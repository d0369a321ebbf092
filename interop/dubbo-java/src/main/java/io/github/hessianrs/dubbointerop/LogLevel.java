package io.github.hessianrs.dubbointerop;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sets the java.util.logging root level from {@code DUBBO_INTEROP_LOG} (default WARNING). Named in
 * logging.properties ({@code config=}), so it runs again whenever Dubbo's JdkLoggerAdapter re-reads
 * that file.
 */
public class LogLevel {
    public LogLevel() {
        apply();
    }

    public static void apply() {
        String level = System.getenv("DUBBO_INTEROP_LOG");
        Level l = Level.WARNING;
        if (level != null && !level.isEmpty()) {
            try {
                l = Level.parse(level.toUpperCase());
            } catch (IllegalArgumentException e) {
                // keep WARNING
            }
        }
        // only the root logger's level: the handler (logging.properties) passes everything
        Logger.getLogger("").setLevel(l);
    }
}
