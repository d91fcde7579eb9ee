package dev.punctual.core.schedule;

import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

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

    private static final Pattern DAY_NAMES = Pattern.compile("(?i)SUN|MON|TUE|WED|THU|FRI|SAT");
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

    private CronDialect() {}

    /**
     * A day-of-week field with its names as Unix numbers (SUN 0 … SAT 6). cron-utils maps SUN to 7, so a range
     * from Sunday ({@code SUN-WED}, the days 0-3 in Unix cron) would otherwise be refused as 7-3.
     */
    static String dayNumbers(String dayOfWeek) {
        return DAY_NAMES
                .matcher(dayOfWeek)
                .replaceAll(m -> Integer.toString(DAYS.indexOf(m.group().toUpperCase(Locale.ROOT))));
    }

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
