package fulltext

import "testing"

func TestQueryText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"eGFR of 24 mL/min/1.73 m²", "egfr"},
		{"eGFR <30 mL/min/1.73 m2", "egfr"},
		{"no eGFR below 30", "egfr"},
		{"an LVEF of 37%", "lvef"},
		{"LVEF ≤ 35 %", "lvef"},
		{"ST-segment depression 0.2 mV", "st-segment depression"},
		{"0.2 mV ST-segment depression on the resting ECG", "st-segment depression on the resting ecg"},
		{"clinical likelihood of obstructive CAD of 90%", "clinical likelihood of obstructive cad"},
		{"pre-test likelihood of obstructive CAD of 15-85%", "pre-test likelihood of obstructive cad"},
		{"type 2 diabetes", "type 2 diabetes"},
		{"12-lead ECG", "12-lead ecg"},
		{"CHA2DS2-VASc score 3", "cha2ds2-vasc score"},
		{"no history of myocardial infarction", "myocardial infarction"},
		{"denies chest pain", "chest pain"},
		{"without diabetes", "diabetes"},
		{"non-obstructive coronary arteries", "non-obstructive coronary arteries"},
		{"BMI of 42 kg/m²", "bmi"},
		{"age 72 years", "age"},
		{"72-year-old", "72-year-old"},
		{"aged 72 years old", "aged"},
		{"QRS duration of 150 ms", "qrs duration"},
		{"NYHA class 3", "nyha class 3"},
		{"LDL-C 2.6 mmol/L", "ldl-c"},
		{"heart rate > 100 bpm", "heart rate"},
		{"fast irregular heart rate", "fast irregular heart rate"},
		{"Ischaemia", "ischaemia"},
		{"  ", ""},
		{"30", ""},
	}
	for _, c := range cases {
		if got := QueryText(c.in); got != c.want {
			t.Errorf("QueryText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
