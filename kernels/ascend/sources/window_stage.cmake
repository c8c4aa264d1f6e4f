# Host staging of the 2-d window layout shared by the convolution and max pool families.
list(APPEND KILN_ASCEND_HOST_SOURCES common/window_stage.cpp)
