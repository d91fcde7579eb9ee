package dev.punctual.core.schedule;

import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;

/**
 * The cron dialect users write: Unix's five fields (minute hour day-of-month month day-of-week), optionally preceded
 * by a seconds field, with Quartz's {@code L}, {@code W}, {@code #} and {@code ?}. Day-of-week is Unix's: 0 or 7 is
 * Sunday, 1 Monday, names SUN–SAT. There is no year field and no {@code @daily}-style nickname.
 *
 * <p>cron-utils picks its parse by field count, so the two lengths are two definitions of one dialect.
 */
final class CronDialect {
    static final CronParser FIVE_FIELDS = new CronParser(definition(false));
    static final CronParser SIX_FIELDS = new CronParser(definition(true));

    private CronDialect() {}

    private static CronDefinition definition(boolean seconds) {
        CronDefinitionBuilder b = CronDefinitionBuilder.defineCron();
        if (seconds) {
            b = b.withSeconds().withStrictRange().and();
        }
        return b.withMinutes()
                .withStrictRange()
                .and()
                .withHours()
                .withStrictRange()
                .and()
                .withDayOfMonth()
                .supportsL()
                .supportsW()
                .supportsLW()
                .supportsQuestionMark()
                .withStrictRange()
                .and()
                .withMonth()
                .withStrictRange()
                .and()
                .withDayOfWeek()
                .withValidRange(0, 7)
                .withMondayDoWValue(1)
                .withIntMapping(7, 0)
                .supportsHash()
                .supportsL()
                .supportsQuestionMark()
                .withStrictRange()
                .and()
                .instance();
    }
}
