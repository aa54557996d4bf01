# run by hand once a quarter
echo rotate
