package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The documented dialect: Unix meaning for five fields, an optional leading seconds field, L, W, #, ?. */
class CronExpressionTest {
    private static final LocalDateTime FROM = LocalDateTime.of(2030, 1, 1, 0, 0);

    private static List<LocalDateTime> matches(String expression, int n) {
        CronExpression e = CronExpression.parse(expression);
        List<LocalDateTime> out = new ArrayList<>();
        LocalDateTime t = FROM;
        for (int i = 0; i < n; i++) {
            t = e.nextAfter(t).orElseThrow();
            out.add(t);
        }
        return out;
    }

    private static List<LocalDate> days(String expression, int n) {
        return matches(expression, n).stream().map(LocalDateTime::toLocalDate).toList();
    }

    @Test
    void dayOfWeekZeroAndSevenAreSundayAndOneIsMonday() {
        assertThat(days("0 9 * * 0", 3)).allMatch(d -> d.getDayOfWeek() == DayOfWeek.SUNDAY);
        assertThat(days("0 9 * * 7", 3)).isEqualTo(days("0 9 * * 0", 3));
        assertThat(days("0 9 * * SUN", 3)).isEqualTo(days("0 9 * * 0", 3));
        assertThat(days("0 9 * * 1", 3)).allMatch(d -> d.getDayOfWeek() == DayOfWeek.MONDAY);
        assertThat(days("0 9 * * MON-FRI", 10))
                .noneMatch(d -> d.getDayOfWeek().getValue() > 5)
                .hasSize(10);
        assertThat(days("0 9 * * 6,0", 4))
                .extracting(LocalDate::getDayOfWeek)
                .containsExactly(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY, DayOfWeek.SATURDAY, DayOfWeek.SUNDAY);
    }

    @Test
    void fiveFieldsAreMinuteHourDayMonthWeekday() {
        assertThat(matches("*/5 * * * *", 3))
                .containsExactly(FROM.plusMinutes(5), FROM.plusMinutes(10), FROM.plusMinutes(15));
        assertThat(matches("30 2 15 6 *", 2))
                .containsExactly(LocalDateTime.of(2030, 6, 15, 2, 30), LocalDateTime.of(2031, 6, 15, 2, 30));
        assertThat(matches("0 12 1 JAN,JUL *", 2))
                .containsExactly(LocalDateTime.of(2030, 1, 1, 12, 0), LocalDateTime.of(2030, 7, 1, 12, 0));
    }

    @Test
    void whenBothDayFieldsAreRestrictedEitherMatchesAsInUnixCron() {
        // The 13th of every month, and every Friday (not only Friday the 13th).
        List<LocalDate> d = days("0 9 13 * 5", 8);
        assertThat(d)
                .containsExactly(
                        LocalDate.of(2030, 1, 4),
                        LocalDate.of(2030, 1, 11),
                        LocalDate.of(2030, 1, 13),
                        LocalDate.of(2030, 1, 18),
                        LocalDate.of(2030, 1, 25),
                        LocalDate.of(2030, 2, 1),
                        LocalDate.of(2030, 2, 8),
                        LocalDate.of(2030, 2, 13));
    }

    @Test
    void questionMarkIsAnUnrestrictedDayField() {
        assertThat(days("0 9 ? * 5", 3)).isEqualTo(days("0 9 * * 5", 3));
        assertThat(days("0 9 15 * ?", 3)).isEqualTo(days("0 9 15 * *", 3));
        assertThat(days("0 9 ? * ?", 3)).isEqualTo(days("0 9 * * *", 3));
    }

    @Test
    void lastWeekdayAndNthOfMonth() {
        assertThat(days("0 9 L * *", 3))
                .containsExactly(LocalDate.of(2030, 1, 31), LocalDate.of(2030, 2, 28), LocalDate.of(2030, 3, 31));
        assertThat(days("0 9 L-2 * *", 2)).containsExactly(LocalDate.of(2030, 1, 29), LocalDate.of(2030, 2, 26));
        // 15 June 2030 is a Saturday: the nearest weekday is Friday the 14th.
        assertThat(days("0 9 15W 6 *", 1)).containsExactly(LocalDate.of(2030, 6, 14));
        // The last weekday of March 2030 (the 31st is a Sunday).
        assertThat(days("0 9 LW 3 *", 1)).containsExactly(LocalDate.of(2030, 3, 29));
        assertThat(days("0 9 * * 1#2", 2)).containsExactly(LocalDate.of(2030, 1, 14), LocalDate.of(2030, 2, 11));
        assertThat(days("0 9 * * 5L", 2)).containsExactly(LocalDate.of(2030, 1, 25), LocalDate.of(2030, 2, 22));
    }

    @Test
    void theNearestWeekdayStaysInItsMonthAndSkipsAMonthWithoutItsDay() {
        // 30 June 2030 is a Sunday and the month's last day: the Friday before, never Monday 1 July.
        assertThat(days("0 9 30W 6 *", 1)).containsExactly(LocalDate.of(2030, 6, 28));
        // 1 June 2030 is a Saturday: Monday the 3rd, never Friday 31 May.
        assertThat(days("0 9 1W 6 *", 1)).containsExactly(LocalDate.of(2030, 6, 3));
        // 31W: only the months with a 31st (cron-utils threw on February); March 2030's 31st is a Sunday.
        assertThat(days("0 9 31W * *", 4))
                .containsExactly(
                        LocalDate.of(2030, 1, 31),
                        LocalDate.of(2030, 3, 29),
                        LocalDate.of(2030, 5, 31),
                        LocalDate.of(2030, 7, 31));
        // 29W in February: only in leap years (2032-02-29 is a Sunday, the month's last day: Friday the 27th).
        assertThat(days("0 9 29W 2 *", 1)).containsExactly(LocalDate.of(2032, 2, 27));
        // A day moved forward keeps its later times: 15 June 2030 is a Saturday, so Friday the 14th, every hour.
        assertThat(matches("0 * 16W 6 *", 3))
                .containsExactly(
                        LocalDateTime.of(2030, 6, 17, 0, 0),
                        LocalDateTime.of(2030, 6, 17, 1, 0),
                        LocalDateTime.of(2030, 6, 17, 2, 0));
    }

    @Test
    void lastDaysAndNearestWeekdaysMixInLists() {
        // 1 December 2030 is a Sunday (so 1W is Monday the 2nd); the 15th is a Sunday too (the 16th).
        assertThat(days("0 9 1W,15W 12 *", 2)).containsExactly(LocalDate.of(2030, 12, 2), LocalDate.of(2030, 12, 16));
        assertThat(days("0 9 L,15 * *", 4))
                .containsExactly(
                        LocalDate.of(2030, 1, 15),
                        LocalDate.of(2030, 1, 31),
                        LocalDate.of(2030, 2, 15),
                        LocalDate.of(2030, 2, 28));
        assertThat(days("0 9 LW,L-1,10-12/2 3 *", 4))
                .containsExactly(
                        LocalDate.of(2030, 3, 10),
                        LocalDate.of(2030, 3, 12),
                        LocalDate.of(2030, 3, 29),
                        LocalDate.of(2030, 3, 30));
        // With the day of the week restricted too, either matches: Mondays, and the last day.
        assertThat(days("0 9 L * 1", 3))
                .containsExactly(LocalDate.of(2030, 1, 7), LocalDate.of(2030, 1, 14), LocalDate.of(2030, 1, 21));
        assertThat(days("0 9 L * 1", 6)).contains(LocalDate.of(2030, 1, 31));
    }

    @Test
    void dayNamesAreUnixDaysSoARangeMayStartOnSunday() {
        assertThat(days("0 9 * * SUN-WED", 8))
                .extracting(LocalDate::getDayOfWeek)
                .allMatch(d -> d == DayOfWeek.SUNDAY || d.getValue() <= 3)
                .contains(DayOfWeek.SUNDAY, DayOfWeek.WEDNESDAY);
        assertThat(days("0 9 * * SUN-SAT", 7)).isEqualTo(days("0 9 * * *", 7));
        assertThat(days("0 9 * * sun,Sat", 4)).isEqualTo(days("0 9 * * 0,6", 4));
        assertThat(days("0 9 * * MON#2", 2)).isEqualTo(days("0 9 * * 1#2", 2));
    }

    @Test
    void aDayOfMonthItemOutsideTheDialectIsNamedInTheError() {
        assertThatThrownBy(() -> CronExpression.parse("0 0 */5W * *")).hasMessageContaining("'*/5W'");
        assertThatThrownBy(() -> CronExpression.parse("0 0 1-10W * *")).hasMessageContaining("'1-10W'");
        assertThatThrownBy(() -> CronExpression.parse("0 0 W * *")).hasMessageContaining("'W'");
        assertThatThrownBy(() -> CronExpression.parse("0 0 0W * *")).hasMessageContaining("days are 1 to 31");
        assertThatThrownBy(() -> CronExpression.parse("0 0 32W * *")).hasMessageContaining("days are 1 to 31");
        assertThatThrownBy(() -> CronExpression.parse("0 0 L-31 * *")).hasMessageContaining("L-n");
        assertThatThrownBy(() -> CronExpression.parse("0 0 31W,30 2 *")).hasMessageContaining("never matches");
        assertThatThrownBy(() -> CronExpression.parse("0 0 31W 2,4 *")).hasMessageContaining("never matches");
    }

    @Test
    void sixFieldsStartWithSeconds() {
        assertThat(matches("*/10 * * * * *", 3))
                .containsExactly(FROM.plusSeconds(10), FROM.plusSeconds(20), FROM.plusSeconds(30));
        assertThat(matches("15 0 9 * * MON", 1)).containsExactly(LocalDateTime.of(2030, 1, 7, 9, 0, 15));
        assertThat(CronExpression.parse("*/10 * * * * *").hasSeconds()).isTrue();
        assertThat(CronExpression.parse("* * * * *").hasSeconds()).isFalse();
    }

    @Test
    void shortestSecondsGapCountsAroundTheMinute() {
        assertThat(CronExpression.parse("* * * * *").shortestSecondsGap()).isEqualTo(60);
        assertThat(CronExpression.parse("7 * * * * *").shortestSecondsGap()).isEqualTo(60);
        assertThat(CronExpression.parse("*/10 * * * * *").shortestSecondsGap()).isEqualTo(10);
        assertThat(CronExpression.parse("0,30 * * * * *").shortestSecondsGap()).isEqualTo(30);
        assertThat(CronExpression.parse("5,58 * * * * *").shortestSecondsGap()).isEqualTo(7);
        assertThat(CronExpression.parse("* * * * * *").shortestSecondsGap()).isEqualTo(1);
    }

    @Test
    void fieldsAreSeparatedByAnyWhitespaceAndNormalized() {
        assertThat(CronExpression.parse("  0  9\t* * 1 ").toString()).isEqualTo("0 9 * * 1");
        assertThat(CronExpression.parse("0 9 * * 1")).isEqualTo(CronExpression.parse("0  9 * * 1"));
    }

    @Test
    void rejectsWhatIsNotInTheDialect() {
        assertThatThrownBy(() -> CronExpression.parse("* * * *")).hasMessageContaining("5 fields");
        assertThatThrownBy(() -> CronExpression.parse("0 0 0 1 1 ? 2030")).hasMessageContaining("got 7");
        assertThatThrownBy(() -> CronExpression.parse("60 * * * *")).hasMessageContaining("60");
        assertThatThrownBy(() -> CronExpression.parse("0 24 * * *")).hasMessageContaining("24");
        assertThatThrownBy(() -> CronExpression.parse("0 9 * * 8")).hasMessageContaining("8");
        assertThatThrownBy(() -> CronExpression.parse("0 9 32 * *")).hasMessageContaining("32");
        assertThatThrownBy(() -> CronExpression.parse("@daily")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CronExpression.parse("0 9 * * 1-")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CronExpression.parse("0 ? * * *")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CronExpression.parse("0 0 31 2 *")).hasMessageContaining("never matches");
    }
}
